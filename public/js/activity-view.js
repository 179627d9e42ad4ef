// @ts-check
// A person's own recent tool calls (GET /api/activity) as a table, newest first, with "Show older"
// following the API's next_cursor. Pure view: the page is fetched by the `load` it is given
// (activity.js passes the REST call; the unit test a stand-in), so it renders outside a browser too.
import { clear, errorBox, formatMs, formatTime, h } from "./dom.js";

/**
 * Who called (each null when the request did not say).
 * @typedef {{ name: string | null, version: string | null, protocol_version: string | null, oauth_client_id: string | null }} CallClient
 */
/**
 * A call as GET /api/activity lists it.
 * @typedef {{ event_id: string, at: string, server: string, tool: string, source: { id: number, slug: string } | null,
 *   outcome: string, duration_ms: number, client: CallClient }} ActivityCall
 */
/** @typedef {{ calls: ActivityCall[], next_cursor: string | null, retention_days: number }} ActivityPage */

/**
 * Who called, in words: the client's own name and version when the request said; else the OAuth
 * app the token was issued to; else an API token. The protocol revision goes in the tooltip.
 * @param {ActivityCall["client"]} client
 */
export function clientLabel(client) {
  if (client.name) return client.version ? `${client.name} ${client.version}` : client.name;
  if (client.oauth_client_id) return `app ${client.oauth_client_id}`;
  return client.protocol_version ? "MCP client (unnamed)" : "unknown";
}

/** @param {ActivityCall} call */
function callRow(call) {
  const ok = call.outcome === "ok";
  const client = clientLabel(call.client);
  const { protocol_version: revision, oauth_client_id: app } = call.client;
  const details = [revision && `MCP ${revision}`, app && `OAuth client ${app}`].filter(Boolean).join(" · ");
  return h(
    "tr",
    { "data-call": call.event_id },
    h("td", {}, h("time", { datetime: call.at }, formatTime(call.at))),
    h("td", { title: details || null }, client),
    h("td", {}, call.source ? h("span", {}, call.server, h("span", { class: "muted small" }, " (source)")) : call.server),
    h("th", { scope: "row" }, h("code", {}, call.tool)),
    h("td", {}, h("span", { class: ok ? "" : "bad", "data-outcome": call.outcome }, call.outcome.replaceAll("_", " "))),
    h("td", {}, formatMs(call.duration_ms)),
  );
}

const COLUMNS = ["Time", "Client", "Server", "Tool", "Outcome", "Duration"];

/**
 * Renders the first page into `container` and appends older pages on request.
 * @param {HTMLElement} container
 * @param {(cursor: string | null) => Promise<ActivityPage>} load
 * @param {(error: unknown) => Node} [showError]
 */
export async function renderActivity(container, load, showError = (error) => errorBox(String(error), "Could not load your activity")) {
  container.setAttribute("aria-busy", "true");
  clear(container, h("p", { class: "muted" }, "Loading your activity…"));
  /** @type {ActivityPage} */
  let page;
  try {
    page = await load(null);
  } catch (error) {
    clear(container, showError(error));
    container.setAttribute("aria-busy", "false");
    return;
  }
  const kept = h(
    "p",
    { class: "muted small" },
    `Your calls of the last ${page.retention_days} days through `,
    h("code", {}, "/mcp"),
    ", newest first. Arguments and results are never recorded.",
  );
  if (page.calls.length === 0) {
    clear(
      container,
      kept,
      h(
        "div",
        { class: "empty" },
        h("p", {}, h("strong", {}, "No calls yet."), " Tool calls through the gateway appear here a few seconds after they end."),
      ),
    );
    container.setAttribute("aria-busy", "false");
    return;
  }
  const rows = h("tbody", {}, page.calls.map(callRow));
  const status = h("div", { "aria-live": "polite" });
  const older = h("button", { type: "button", "data-older": "" }, "Show older");
  let cursor = page.next_cursor;
  older.hidden = cursor === null;
  older.addEventListener("click", async () => {
    older.disabled = true;
    clear(status);
    try {
      const next = await load(cursor);
      rows.append(...next.calls.map(callRow));
      cursor = next.next_cursor;
      older.hidden = cursor === null;
    } catch (error) {
      clear(status, showError(error));
    }
    older.disabled = false;
  });
  clear(
    container,
    kept,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "activity" },
        h("caption", { class: "sr-only" }, "Your recent tool calls"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            COLUMNS.map((label) => h("th", { scope: "col" }, label)),
          ),
        ),
        rows,
      ),
    ),
    h("div", { class: "actions" }, older),
    status,
  );
  container.setAttribute("aria-busy", "false");
}
