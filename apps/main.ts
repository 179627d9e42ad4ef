// The one script of every mcp-edge app: the document's `data-view` says which view it is
// (workers/apps/app-document.ts sets it), so both apps share one bundle of the ext-apps runtime.
import { App } from "@modelcontextprotocol/ext-apps";
import { startAnswerView } from "./answer-view";
import { startTaskBoard } from "./task-board";

const view = document.body.dataset["view"];
const app = new App({ name: `mcp-edge-${view ?? "app"}`, version: "1.0.0" });
const root = document.getElementById("app");
if (root) {
  if (view === "task-board") startTaskBoard(app, root);
  else if (view === "answer-view") startAnswerView(app, root);
}
void app.connect();
