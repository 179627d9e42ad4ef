/** REST API for gateway sources (/api/sources): the same schemas and service as the admin tools will use. */
import { z } from "zod";
import { defineRoute } from "../http/api-route";
import {
  createSourceInput,
  createSourceResult,
  deleteSourceResult,
  fields,
  sourceDetail,
  sourceList,
  updateSourceInput,
} from "./sources.schema";

const TAG = "sources";
const idParams = z.object({ source_id: z.coerce.number<string>().pipe(fields.source_id) });

export const sourceRoutes = [
  defineRoute({
    method: "post",
    path: "/api/sources",
    summary: "Register an upstream MCP server and discover its tools",
    tag: TAG,
    body: createSourceInput,
    response: createSourceResult,
    status: 201,
    handle: async ({ body }, c) => {
      const { source, tools } = await c.var.services.sources.create(c.var.user.id, body);
      return { ...source, tools };
    },
  }),
  defineRoute({
    method: "get",
    path: "/api/sources",
    summary: "Your sources",
    tag: TAG,
    response: sourceList,
    handle: (_input, c) => c.var.services.sources.list(c.var.user.id),
  }),
  defineRoute({
    method: "get",
    path: "/api/sources/{source_id}",
    summary: "One source with its discovered tools",
    tag: TAG,
    params: idParams,
    response: sourceDetail,
    handle: ({ params }, c) => c.var.services.sources.get(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "patch",
    path: "/api/sources/{source_id}",
    summary: "Change, enable or disable a source; a new url or env vars re-runs discovery",
    tag: TAG,
    params: idParams,
    body: updateSourceInput,
    response: sourceDetail,
    handle: ({ params, body }, c) => c.var.services.sources.update(c.var.user.id, params.source_id, body),
  }),
  defineRoute({
    method: "post",
    path: "/api/sources/{source_id}/refresh",
    summary: "Discover the source's tools again",
    tag: TAG,
    params: idParams,
    response: sourceDetail,
    handle: ({ params }, c) => c.var.services.sources.refresh(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "delete",
    path: "/api/sources/{source_id}",
    summary: "Delete a source, its inventory and its connection state",
    tag: TAG,
    params: idParams,
    response: deleteSourceResult,
    handle: async ({ params }, c) => {
      await c.var.services.sources.remove(c.var.user.id, params.source_id);
      return { deleted: true, id: params.source_id };
    },
  }),
];
