/**
 * The gateway's admin tools, built-in tools of /mcp only (not of any /mcp/<server>): manage your
 * sources, their health and your hidden tools from any MCP client. Thin adapters over the same
 * SourceRegistry and zod schemas as /api/sources; the owner is always the authenticated user, and
 * no output carries a secret (the source views never include secret values or the bridge token).
 */
import * as z from "zod";
import { defineTool, READ_ONLY, type ToolDefinition } from "../../mcp/tool";
import { AUTHORIZATION_TOOL_NAMES, sourceAuthorizationTools } from "../authorization/source-authorization.tools";
import type { SourceDetail } from "../registry/source-views";
import {
  createSourceInput,
  deleteSourceResult,
  hiddenToolList,
  hiddenToolName,
  hideToolResult,
  sourceDetail,
  sourceHealthList,
  sourceIdInput,
  sourceList,
  updateSourceToolInput,
  fields,
} from "../sources/sources.schema";

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const LOCAL_WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const ADMIN_TOOL_NAMES = [
  "gateway_list_sources",
  "gateway_add_source",
  "gateway_update_source",
  "gateway_refresh_source",
  "gateway_delete_source",
  "gateway_source_health",
  "gateway_list_hidden_tools",
  "gateway_hide_tool",
  "gateway_unhide_tool",
  ...AUTHORIZATION_TOOL_NAMES,
] as const;

function describeDetail(verb: string, { source, tools }: SourceDetail): string {
  const lines = [
    `${verb} source ${source.id} "${source.name}" (slug ${source.slug}, ${source.mcp_transport_type}${source.enabled ? "" : ", disabled"}${source.hidden ? ", hidden" : ""}): ${tools.length} tools`,
  ];
  if (source.last_discovery_error) lines.push(`Last discovery failed: ${source.last_discovery_error}`);
  for (const warning of source.warnings) lines.push(`Warning: ${warning}`);
  for (const tool of tools)
    lines.push(`- ${tool.gateway_name}${tool.hidden ? " (hidden)" : ""}${tool.aliases.length ? ` (also ${tool.aliases.join(", ")})` : ""}`);
  return lines.join("\n");
}

const toolName = z.object({ name: hiddenToolName });
const healthInput = z.object({ source_id: fields.source_id.optional().describe("One source; omit for all of yours") });

/** `builtins`: every built-in tool name /mcp serves (the hidable ones besides source tools). */
export function adminTools(builtins: ReadonlySet<string>): ToolDefinition[] {
  return [
    defineTool({
      name: "gateway_list_sources",
      title: "List gateway sources",
      description:
        "List the upstream MCP servers (sources) you registered on this gateway: id, name, slug (their tools appear on /mcp as <slug>__<tool>), transport, enabled/hidden, tool count and the last discovery's time, error and warnings. Secret values are never shown.",
      input: z.object({}),
      output: sourceList,
      annotations: READ_ONLY,
      scopes: ["gateway:read"],
      run: async (_args, { user, services }) => {
        const list = await services.sources.list(user.id);
        const lines = list.sources.map(
          (s) =>
            `${s.id} ${s.slug} (${s.mcp_transport_type}${s.enabled ? "" : ", disabled"}${s.hidden ? ", hidden" : ""}): ${s.tool_count} tools${s.last_discovery_error ? `; last discovery failed: ${s.last_discovery_error}` : ""}`,
        );
        return { data: list, text: lines.length ? lines.join("\n") : "You have no sources." };
      },
    }),
    defineTool({
      name: "gateway_add_source",
      title: "Add gateway source",
      description:
        "Register an upstream MCP server and discover its tools, which then appear on /mcp as <slug>__<tool> (the slug comes from the name). Give name and url (or mcp_server_url, which wins when both are given); mcp_transport_type is streamable_http (default), sse, or stdio for a local process served by `mcp-edge bridge` (then url is the bridge's URL and bridge_token its token, mcp_env_vars the process environment, and an optional manifest — plugin.json / server.json — whose required variables must be given). A plugin of `mcp-edge bridge --plugins DIR` is named by mcp_plugin_dir (its directory; stdio by default) with url the bridge's base URL: its manifest is read from the bridge. mcp_env_vars is a list of {name, value, secret} or an object of NAME: value (values secret); for remote sources they are HTTP headers (e.g. Authorization). Secrets are stored encrypted and never shown again. A failed discovery is reported in last_discovery_error, not as an error.",
      input: createSourceInput,
      output: sourceDetail,
      annotations: WRITE,
      scopes: ["gateway:admin"],
      run: async (args, { user, services }) => {
        const detail = await services.sources.create(user.id, args);
        return { data: detail, text: describeDetail("Added", detail) };
      },
    }),
    defineTool({
      name: "gateway_update_source",
      title: "Update gateway source",
      description:
        "Change one of your sources by source_id: rename it (its slug follows; 409 when you already have that slug), describe it, point it elsewhere (another url, or another mcp_plugin_dir on its bridge), replace mcp_env_vars (the whole list, secrets included), enable or disable it (enabled), or hide it from your /mcp list (hidden). A changed url, plugin, transport, env vars or bridge token — or enabling it — re-runs discovery.",
      input: updateSourceToolInput,
      output: sourceDetail,
      annotations: { ...WRITE, idempotentHint: true },
      scopes: ["gateway:admin"],
      run: async ({ source_id, ...change }, { user, services }) => {
        const detail = await services.sources.update(user.id, source_id, change);
        return { data: detail, text: describeDetail("Updated", detail) };
      },
    }),
    defineTool({
      name: "gateway_refresh_source",
      title: "Refresh gateway source",
      description:
        "Discover a source's tools again now (by source_id). Renamed upstream tools keep their old gateway name as an alias; alias clashes are reported as warnings. A failed discovery keeps the previous tools and reports the error.",
      input: sourceIdInput,
      output: sourceDetail,
      annotations: { ...WRITE, idempotentHint: true },
      scopes: ["gateway:admin"],
      run: async ({ source_id }, { user, services }) => {
        const detail = await services.sources.refresh(user.id, source_id);
        return { data: detail, text: describeDetail("Refreshed", detail) };
      },
    }),
    defineTool({
      name: "gateway_delete_source",
      title: "Delete gateway source",
      description:
        "Delete one of your sources by source_id, with its tool inventory, aliases, hidden-tool entries and connection state. Its tools disappear from /mcp.",
      input: sourceIdInput,
      output: deleteSourceResult,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      scopes: ["gateway:admin"],
      run: async ({ source_id }, { user, services }) => {
        await services.sources.remove(user.id, source_id);
        return { data: { deleted: true as const, id: source_id }, text: `Deleted source ${source_id}` };
      },
    }),
    defineTool({
      name: "gateway_source_health",
      title: "Gateway source health",
      description:
        "Health of one source (source_id) or of all your sources: state (healthy, degraded — error rate over 20% or last discovery failed —, unhealthy — circuit breaker open —, disabled, unknown — never discovered nor called), breaker, tool count, last discovery, and the recent calls' error rate, p50/p95 latency and last success/error.",
      input: healthInput,
      output: sourceHealthList,
      annotations: READ_ONLY,
      scopes: ["gateway:read"],
      run: async ({ source_id }, { user, services }) => {
        const list =
          source_id === undefined
            ? await services.sourceHealth.list(user.id)
            : { sources: [await services.sourceHealth.get(user.id, source_id)], count: 1 };
        const lines = list.sources.map(
          (h) =>
            `${h.source_id} ${h.slug}: ${h.state} (breaker ${h.breaker}, ${h.calls.window} recent calls, error rate ${Math.round(h.calls.error_rate * 100)}%${h.calls.p50_ms === null ? "" : `, p50 ${h.calls.p50_ms} ms`})`,
        );
        return { data: list, text: lines.length ? lines.join("\n") : "You have no sources." };
      },
    }),
    defineTool({
      name: "gateway_list_hidden_tools",
      title: "List hidden tools",
      description: "List the tools you hid from your own /mcp list (built-in tools by name, source tools as <slug>__<tool>).",
      input: z.object({}),
      output: hiddenToolList,
      annotations: READ_ONLY,
      scopes: ["gateway:read"],
      run: async (_args, { user, services }) => {
        const list = await services.hiddenTools.list(user.id);
        return { data: list, text: list.count ? list.hidden_tools.map((t) => t.name).join("\n") : "No hidden tools." };
      },
    }),
    defineTool({
      name: "gateway_hide_tool",
      title: "Hide tool",
      description:
        "Hide a tool from your own /mcp list by the name /mcp lists it under (a built-in tool such as add_task, or <slug>__<tool>); hidden tools also refuse calls. Affects only you. Undo with gateway_unhide_tool (or the REST API). To hide a whole source, use gateway_update_source with hidden true.",
      input: toolName,
      output: hideToolResult,
      annotations: LOCAL_WRITE,
      scopes: ["gateway:admin"],
      run: async ({ name }, { user, services }) => {
        const result = await services.hiddenTools.hide(user.id, name, builtins);
        return { data: result, text: `Hid ${result.tool.name} from your /mcp list` };
      },
    }),
    defineTool({
      name: "gateway_unhide_tool",
      title: "Unhide tool",
      description: "Show a tool you hid on your /mcp list again (by its /mcp name). Unhiding a tool that is not hidden changes nothing.",
      input: toolName,
      output: hideToolResult,
      annotations: LOCAL_WRITE,
      scopes: ["gateway:admin"],
      run: async ({ name }, { user, services }) => {
        const result = await services.hiddenTools.unhide(user.id, name, builtins);
        return { data: result, text: `${result.tool.name} is listed on your /mcp again` };
      },
    }),
    ...sourceAuthorizationTools(),
  ];
}
