// @ts-check
// The Activity tab: the signed-in person's own recent tool calls (GET /api/activity, which needs
// gateway:read), shown by activity-view.js; a 403 offers to ask for the permission (step-up.js).
import { api } from "./api.js";
import { renderActivity } from "./activity-view.js";
import { clear, h } from "./dom.js";
import { errorView } from "./step-up.js";

/** @param {HTMLElement} panel */
export function renderActivityPanel(panel) {
  const body = h("div", { class: "panel-body", "aria-live": "polite" });
  const refresh = h("button", { type: "button" }, "Refresh");
  refresh.addEventListener("click", () => renderActivityPanel(panel));
  clear(panel, h("div", { class: "panel-head" }, h("h2", {}, "Activity"), refresh), body);
  void renderActivity(
    body,
    (cursor) => api(`/api/activity?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
    (error) => errorView(error, "Could not load your activity"),
  );
}
