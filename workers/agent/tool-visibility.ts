/**
 * Which of an MCP server's tools the model may see. The MCP Apps extension lets a tool say who it
 * is for in `_meta.ui.visibility` ("model", "app"; absent = both): a tool listed only for "app"
 * exists for an app's own use and is left out of the model's tools (decision 0071).
 */
export function visibleToModel(tool: { _meta?: Record<string, unknown> | undefined }): boolean {
  const ui = tool._meta?.["ui"];
  if (typeof ui !== "object" || ui === null || !("visibility" in ui)) return true;
  const { visibility } = ui;
  // A visibility that is not a list of audiences says nothing the extension defines: the default holds.
  if (!Array.isArray(visibility)) return true;
  return visibility.includes("model");
}
