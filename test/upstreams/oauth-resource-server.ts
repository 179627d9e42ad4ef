/**
 * A second OAuth-protected upstream for the gateway's tests, whose authorization server is another
 * issuer than mcp-edge: a real `oidc-provider` (certified OpenID Provider) on loopback issuing JWT
 * access tokens for one resource (RFC 8707), with Dynamic Client Registration, refresh tokens and
 * revocation — and beside it a small MCP server (the SDK's Server) that accepts only those tokens:
 * signature from the provider's JWKS, `iss` that provider, `aud` the endpoint called. `/mcp` keeps
 * no session; `/sessions/mcp` keeps sessions (each serving the account that opened it), so the
 * gateway calls it through the source's Durable Object.
 *
 * - `POST /mcp` without a valid token: 401 with `resource_metadata` (RFC 9728); `whoami` answers
 *   the token's subject (which account the gateway called with); `add_note` needs `notes:write`
 *   and answers 403 `insufficient_scope` without it.
 * - `GET /.well-known/oauth-protected-resource/mcp` (and `/sessions/mcp`): the resource's metadata.
 * - `/mislead/mcp`: always 401, its metadata naming an authorization server on the cloud metadata
 *   address (169.254.169.254), which the gateway must refuse to fetch.
 * The provider takes no Client ID Metadata Documents, so the gateway registers by DCR here. Its
 * token endpoint can be made to fail refreshes of one client for a while (token-faults.ts).
 * `withoutIss` makes it an authorization server as older ones are: it neither advertises nor sends
 * RFC 9207 `iss` (the honest server a mix-up attacker relays to).
 */
import { createServer, type Server as HttpServer, type ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from "jose";
import Provider from "oidc-provider";
import { openSession, serveStatelessRequest } from "./mcp-over-node";
import { listenOnLoopback, readBody } from "./node-http";
import { withTokenFaults } from "./token-faults";

const READ = "notes:read";
const WRITE = "notes:write";

/** Takes `iss` out of the provider's discovery document and its authorization responses' redirects. */
function withoutIss(provider: Provider, issuer: string): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path.startsWith("/.well-known/") && typeof ctx.body === "object" && ctx.body !== null) {
      delete (ctx.body as Record<string, unknown>)["authorization_response_iss_parameter_supported"];
    }
    const location = ctx.response.get("location");
    if (!location) return;
    const target = new URL(location, issuer);
    if (!target.searchParams.has("iss")) return;
    target.searchParams.delete("iss");
    ctx.set("location", target.href);
  });
}

async function startIssuer(port: number, resources: readonly string[], options: { withoutIss?: boolean } = {}): Promise<HttpServer> {
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "notes-issuer-key", alg: "RS256", use: "sig" }] },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? resources[0]!,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resources.includes(indicator)) throw new Error(`unknown resource ${indicator}`);
          return {
            scope: `${READ} ${WRITE}`,
            audience: indicator,
            accessTokenTTL: 3600,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
    scopes: ["openid", "offline_access", READ, WRITE],
    // Every code grant of a client allowed to refresh gets a refresh token (no offline_access dance).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    pkce: { required: () => true },
    cookies: { keys: ["test-only-notes-issuer-cookie-key"] },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  if (options.withoutIss) withoutIss(provider, issuer);
  return listenOnLoopback(createServer(withTokenFaults(provider.callback(), issuer, "/token")), port);
}

function notesServer(subject: string): Server {
  const server = new Server({ name: "notes", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "whoami",
        description: "The subject of the caller's token",
        inputSchema: { type: "object" },
        annotations: { readOnlyHint: true },
      },
      { name: "add_note", description: "Needs notes:write", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: request.params.name === "whoami" ? subject : "noted" }],
  }));
  return server;
}

/** The two MCP endpoints: `/mcp` keeps no session (called from the Worker's isolate), `/sessions/mcp` does (through the source's object). */
const PATHS = ["/mcp", "/sessions/mcp"] as const;

async function startResourceServer(port: number, issuer: string): Promise<HttpServer> {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const base = `http://127.0.0.1:${port}`;
  const sessions = new Map<string, { subject: string; transport: StreamableHTTPServerTransport }>();
  const refuse = (res: ServerResponse, path: string, status: number, challenge: string) =>
    res
      .writeHead(status, {
        "www-authenticate": `Bearer ${challenge}resource_metadata="${base}/.well-known/oauth-protected-resource${path}"`,
        "content-type": "application/json",
      })
      .end(JSON.stringify({ error: status === 401 ? "invalid_token" : "insufficient_scope" }));
  const http = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", base);
      const metadataOf = PATHS.find((path) => url.pathname === `/.well-known/oauth-protected-resource${path}`);
      if (metadataOf) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            resource: `${base}${metadataOf}`,
            authorization_servers: [issuer],
            scopes_supported: [READ],
            bearer_methods_supported: ["header"],
          }),
        );
        return;
      }
      // /mislead/mcp: metadata naming an authorization server on the cloud metadata address, which
      // the gateway must never fetch (its OAuth fetches follow the source URL rules).
      if (url.pathname === "/.well-known/oauth-protected-resource/mislead/mcp") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ resource: `${base}/mislead/mcp`, authorization_servers: ["http://169.254.169.254"] }));
        return;
      }
      if (url.pathname === "/mislead/mcp") {
        await readBody(req);
        res
          .writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mislead/mcp"` })
          .end();
        return;
      }
      const path = PATHS.find((candidate) => candidate === url.pathname);
      if (!path) return void res.writeHead(404).end();
      const text = await readBody(req);
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      let claims: { sub?: string; scope?: unknown };
      try {
        if (!token) throw new Error("no token");
        claims = (await jwtVerify(token, jwks, { issuer, audience: `${base}${path}` })).payload;
      } catch {
        return refuse(res, path, 401, `scope="${READ}", `);
      }
      const subject = claims.sub ?? "";
      const scopes = new Set(typeof claims.scope === "string" ? claims.scope.split(" ") : []);
      const body: unknown = text === "" ? undefined : JSON.parse(text);
      const message = body === undefined || Array.isArray(body) ? undefined : (body as { method?: string; params?: { name?: string } });
      // The challenge must be an HTTP 403 (the spec's step-up signal), decided before the SDK answers 200.
      if (message?.method === "tools/call" && message.params?.name === "add_note" && !scopes.has(WRITE)) {
        return refuse(res, path, 403, `error="insufficient_scope", scope="${READ} ${WRITE}", `);
      }
      if (path === "/sessions/mcp") {
        const id = req.headers["mcp-session-id"];
        if (typeof id === "string") {
          const session = sessions.get(id);
          // A session serves the account that opened it, and no other.
          if (!session || session.subject !== subject)
            return void res
              .writeHead(404, { "content-type": "application/json" })
              .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
          return session.transport.handleRequest(req, res, body);
        }
        if (req.method !== "POST") return void res.writeHead(400).end();
        return openSession(notesServer(subject), sessions, (transport) => ({ subject, transport }), req, res, body);
      }
      if (req.method !== "POST") return void res.writeHead(405).end();
      await serveStatelessRequest(notesServer(subject), req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return listenOnLoopback(http, port);
}

/** The notes issuer on `issuerPort` and its resource server on `serverPort`. */
export async function startNotesUpstream(
  issuerPort: number,
  serverPort: number,
  options: { withoutIss?: boolean } = {},
): Promise<HttpServer[]> {
  const issuer = `http://127.0.0.1:${issuerPort}`;
  const resources = PATHS.map((path) => `http://127.0.0.1:${serverPort}${path}`);
  return Promise.all([startIssuer(issuerPort, resources, options), startResourceServer(serverPort, issuer)]);
}
