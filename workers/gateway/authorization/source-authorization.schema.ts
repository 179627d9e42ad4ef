/**
 * Connecting a source's upstream account (MCP authorization): the shared field schemas of
 * POST /api/sources/{id}/authorize, GET and DELETE /api/sources/{id}/authorization and the
 * gateway_connect_source / gateway_disconnect_source admin tools. No schema here carries a token.
 */
import * as z from "zod";
import { fields } from "../sources/sources.schema";

const scope = z
  .string()
  .max(1000)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, "scopes are space-separated scope tokens (RFC 6749 §3.3)")
  .describe("The scopes to ask for, space-separated; default: what the upstream's metadata suggests");

export const authorizeInput = z.object({
  scope: scope.optional(),
  client_id: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe(
      "A client you registered yourself at the upstream's authorization server; default: mcp-edge's metadata document, else dynamic registration",
    ),
  client_secret: z.string().min(1).max(500).optional().describe("That client's secret, if it has one (stored encrypted, never shown)"),
  return_to: z.enum(["console", "page"]).default("page").describe("Where the browser goes after connecting: the console, or a plain page"),
});

export const authorizeToolInput = authorizeInput.extend({ source_id: fields.source_id });

export const authorizationLink = z.object({
  authorization_url: z
    .string()
    .describe("Open in a browser signed in to mcp-edge (sign-in is offered): it sends you to the upstream to allow access, then back"),
  expires_at: z.string().describe("The link works once, until then"),
  scope: z.string().nullable().describe("The scopes asked for"),
  authorization_server: z.string().nullable().describe("The upstream's authorization server (issuer)"),
});

export const authorizationView = z.object({
  status: z.enum(["needs_authorization", "connected", "authorization_expired"]),
  authorization_server: z.string().nullable(),
  resource: z.string().nullable().describe("The protected resource tokens are asked for (RFC 8707)"),
  scopes_supported: z.array(z.string()),
  granted_scope: z.string().nullable(),
  client_identification: z.enum(["metadata_document", "dynamic_registration", "manual"]).nullable(),
  connected_at: z.string().nullable(),
  refreshed_at: z.string().nullable(),
  expires_at: z.string().nullable().describe("When the current access token expires (it is refreshed before)"),
  last_error: z.string().nullable(),
  redirect_uri: z
    .string()
    .nullable()
    .describe("The redirect URI to register for a client of your own at this authorization server (each server has its own)"),
  warnings: z
    .array(z.string())
    .describe("What to know before connecting, e.g. an authorization server that does not advertise RFC 9207 iss"),
});

export const disconnectResult = z.object({
  disconnected: z.literal(true),
  revoked: z.boolean().describe("Whether the upstream's authorization server confirmed revoking the tokens"),
});
