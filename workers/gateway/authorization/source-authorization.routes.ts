/**
 * REST for connecting a source's upstream account (MCP authorization): start connecting (the link
 * to open in a browser), the connection's state, disconnect. The same service as the admin tools.
 */
import * as z from "zod";
import { defineRoute } from "../../http/api-route";
import { urlNumber } from "../../http/url-number";
import { authorizationLink, authorizationView, authorizeInput, disconnectResult } from "./source-authorization.schema";
import { fields } from "../sources/sources.schema";

const TAG = "sources";
const idParams = z.object({ source_id: urlNumber(fields.source_id) });

export const sourceAuthorizationRoutes = [
  defineRoute({
    method: "post",
    path: "/api/sources/{source_id}/authorize",
    scopes: ["gateway:admin"],
    summary: "Start connecting your account at an OAuth-protected source's upstream: returns the link to open in a browser",
    tag: TAG,
    params: idParams,
    body: authorizeInput,
    response: authorizationLink,
    status: 201,
    handle: ({ params, body }, c) => c.var.services.upstreamConnections.connect(c.var.user.id, params.source_id, body),
  }),
  defineRoute({
    method: "get",
    path: "/api/sources/{source_id}/authorization",
    scopes: ["gateway:read"],
    summary: "The source's MCP authorization: connected or not, the authorization server, scopes, token expiry (never a token)",
    tag: TAG,
    params: idParams,
    response: authorizationView,
    handle: ({ params }, c) => c.var.services.upstreamConnections.view(c.var.user.id, params.source_id),
  }),
  defineRoute({
    method: "delete",
    path: "/api/sources/{source_id}/authorization",
    scopes: ["gateway:admin"],
    summary: "Disconnect your account: revokes the tokens at the upstream when it supports revocation, and forgets them",
    tag: TAG,
    params: idParams,
    response: disconnectResult,
    handle: async ({ params }, c) => {
      const { revoked } = await c.var.services.upstreamConnections.disconnect(c.var.user.id, params.source_id);
      return { disconnected: true as const, revoked };
    },
  }),
];
