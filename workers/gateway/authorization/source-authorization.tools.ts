/**
 * Admin tools for connecting a source's upstream account (MCP authorization), beside the other
 * gateway_* tools: the same service and schemas as /api/sources/{id}/authorize and /authorization.
 * No output carries a token; the link is for the user's own browser.
 */
import { defineTool, type ToolDefinition } from "../../mcp/tool";
import { authorizationLink, authorizeToolInput, disconnectResult } from "./source-authorization.schema";
import { sourceIdInput } from "../sources/sources.schema";

const CONNECT = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const DISCONNECT = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

export const AUTHORIZATION_TOOL_NAMES = ["gateway_connect_source", "gateway_disconnect_source"] as const;

export function sourceAuthorizationTools(): ToolDefinition[] {
  return [
    defineTool({
      name: "gateway_connect_source",
      title: "Connect your account at a source",
      description:
        "Start connecting your own account at an OAuth-protected source's upstream server (its health says needs_authorization or authorization_expired). Returns a one-time link for the user to open in a browser signed in to mcp-edge: they allow access at the upstream and come back. Give the link to the user; never open it yourself.",
      input: authorizeToolInput,
      output: authorizationLink,
      annotations: CONNECT,
      scopes: ["gateway:admin"],
      async run({ source_id, ...input }, ctx) {
        const link = await ctx.services.upstreamConnections.connect(ctx.user.id, source_id, input);
        return {
          data: link,
          text: `Open this link in a browser signed in to mcp-edge to connect (valid once, until ${link.expires_at}): ${link.authorization_url}`,
        };
      },
    }),
    defineTool({
      name: "gateway_disconnect_source",
      title: "Disconnect your account from a source",
      description:
        "Disconnect your account from an OAuth-protected source: its tokens are revoked at the upstream when it supports revocation, and forgotten here. Its tools stay listed and answer authorization_required until you connect again.",
      input: sourceIdInput,
      output: disconnectResult,
      annotations: DISCONNECT,
      scopes: ["gateway:admin"],
      async run({ source_id }, ctx) {
        const { revoked } = await ctx.services.upstreamConnections.disconnect(ctx.user.id, source_id);
        return {
          data: { disconnected: true as const, revoked },
          text: `Disconnected source ${source_id}${revoked ? "; the upstream revoked the tokens" : ""}.`,
        };
      },
    }),
  ];
}
