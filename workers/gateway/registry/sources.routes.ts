/**
 * REST API for gateway sources (/api/sources), their health, and each user's hidden tools
 * (/api/gateway/hidden-tools): the same schemas and service as the gateway's admin tools.
 */
import * as z from "zod";
import { defineRoute } from "../../http/api-route";
import { urlNumber } from "../../http/url-number";
import {
  approveChangesInput,
  approveChangesResult,
  createSourceInput,
  deleteSourceResult,
  fields,
  hiddenToolList,
  hiddenToolName,
  hideToolResult,
  sourceDetail,
  sourceHealthSchema,
  sourceList,
  toolChangeList,
  updateSourceInput,
} from "../sources/sources.schema";

const TAG = "sources";
const idParams = z.object({ source_id: urlNumber(fields.source_id) });

export const sourceRoutes = [
  defineRoute({
    method: "post",
    path: "/api/sources",
    scopes: ["gateway:admin"],
    summary: "Register an upstream MCP server and discover its tools",
    tag: TAG,
    body: createSourceInput,
    response: sourceDetail,
    status: 201,
    handle: ({ body }, c) => c.var.services.sources.create(c.var.user.id, body),
  }),
  defineRoute({
    method: "get",
    path: "/api/sources",
    scopes: ["gateway:read"],
    summary: "Your sources",
    tag: TAG,
    response: sourceList,
    handle: (_input, c) => c.var.services.sources.list(c.var.user.id),
  }),
  defineRoute({
    method: "get",
    path: "/api/sources/{source_id}",
    scopes: ["gateway:read"],
    summary: "One source with its discovered tools",
    tag: TAG,
    params: idParams,
    response: sourceDetail,
    handle: ({ params }, c) => c.var.services.sources.get(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "patch",
    path: "/api/sources/{source_id}",
    scopes: ["gateway:admin"],
    summary: "Change, enable, disable or hide a source; a new url, transport, env vars or bridge token re-runs discovery",
    tag: TAG,
    params: idParams,
    body: updateSourceInput,
    response: sourceDetail,
    handle: ({ params, body }, c) => c.var.services.sources.update(c.var.user.id, params.source_id, body),
  }),
  defineRoute({
    method: "post",
    path: "/api/sources/{source_id}/refresh",
    scopes: ["gateway:admin"],
    summary: "Discover the source's tools again; tools whose definitions changed upstream are held for your approval (see warnings)",
    tag: TAG,
    params: idParams,
    response: sourceDetail,
    handle: ({ params }, c) => c.var.services.sources.refresh(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "get",
    path: "/api/sources/{source_id}/changes",
    scopes: ["gateway:read"],
    summary: "The source's tools held since their definitions changed upstream (or they are new): approved and current definitions",
    tag: TAG,
    params: idParams,
    response: toolChangeList,
    handle: ({ params }, c) => c.var.services.toolChanges.list(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "post",
    path: "/api/sources/{source_id}/changes/approve",
    scopes: ["gateway:admin"],
    summary: "Approve held tool definitions (all, or the tools named), so /mcp lists and calls them again",
    tag: TAG,
    params: idParams,
    body: approveChangesInput,
    response: approveChangesResult,
    handle: ({ params, body }, c) => c.var.services.toolChanges.approve(c.var.user.id, params.source_id, body.tools),
  }),
  defineRoute({
    method: "delete",
    path: "/api/sources/{source_id}",
    scopes: ["gateway:admin"],
    summary: "Delete a source, its inventory and its connection state",
    tag: TAG,
    params: idParams,
    response: deleteSourceResult,
    handle: async ({ params }, c) => {
      await c.var.services.sources.remove(c.var.user.id, params.source_id);
      return { deleted: true, id: params.source_id };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/sources/{source_id}/health",
    scopes: ["gateway:read"],
    summary: "The source's state, circuit breaker, last discovery and recent calls (error rate, latency, last success)",
    tag: TAG,
    params: idParams,
    response: sourceHealthSchema,
    handle: ({ params }, c) => c.var.services.sourceHealth.get(c.var.user.id, params.source_id),
  }),
];

const HIDDEN_TAG = "gateway";
const nameParams = z.object({ name: hiddenToolName });

/** `builtins`: the built-in tool names /mcp serves, which may be hidden besides source tools. */
export function hiddenToolRoutes(builtins: ReadonlySet<string>) {
  return [
    defineRoute({
      method: "get",
      path: "/api/gateway/hidden-tools",
      scopes: ["gateway:read"],
      summary: "The tools you hid from your own /mcp list",
      tag: HIDDEN_TAG,
      response: hiddenToolList,
      handle: (_input, c) => c.var.services.hiddenTools.list(c.var.user.id),
    }),
    defineRoute({
      method: "put",
      path: "/api/gateway/hidden-tools/{name}",
      scopes: ["gateway:admin"],
      summary: "Hide a tool (built-in name or <source_slug>__<tool>) from your /mcp list; its calls are refused",
      tag: HIDDEN_TAG,
      params: nameParams,
      response: hideToolResult,
      handle: ({ params }, c) => c.var.services.hiddenTools.hide(c.var.user.id, params.name, builtins),
    }),
    defineRoute({
      method: "delete",
      path: "/api/gateway/hidden-tools/{name}",
      scopes: ["gateway:admin"],
      summary: "List a hidden tool on your /mcp again",
      tag: HIDDEN_TAG,
      params: nameParams,
      response: hideToolResult,
      handle: ({ params }, c) => c.var.services.hiddenTools.unhide(c.var.user.id, params.name, builtins),
    }),
  ];
}
