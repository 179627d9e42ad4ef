/**
 * GET /api/activity: the signed-in person's own tool calls through the gateway, newest first
 * (activity.service.ts). It needs `gateway:read` (decision 0060): the list is the gateway's own
 * record of its calls — sources, tool names, outcomes, clients — which that scope already shows
 * through the sources and their health, and it holds no argument or result that the narrower
 * scopes (tasks:read, rag:read) protect.
 */
import * as z from "zod";
import { defineRoute } from "../http/api-route";
import { urlNumber } from "../http/url-number";
import { activityFields, activityPage } from "./activity.schema";

const activityQuery = z.object({
  limit: urlNumber(activityFields.limit).default(50),
  cursor: activityFields.cursor.optional(),
});

export const activityRoutes = [
  defineRoute({
    method: "get",
    path: "/api/activity",
    scopes: ["gateway:read"],
    summary: "Your recent tool calls through the gateway (/mcp), newest first, within the retention",
    tag: "activity",
    query: activityQuery,
    response: activityPage,
    handle: ({ query }, c) => c.var.services.activity.recentCalls(c.var.user.id, query),
  }),
];
