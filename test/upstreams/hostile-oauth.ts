/**
 * A hostile OAuth-protected upstream for the auth tests: an MCP endpoint and the authorization
 * server its metadata names, both run by an attacker, recording every request they receive (its
 * headers and body). Each test uses a case of its own, `<id>` ([A-Za-z0-9_-]), configured with
 * `PUT /test-control/<id>` (JSON HostileCase) and read back with `GET /test-control/<id>`
 * (CaseRecord). Never part of a real server.
 *
 * - `<base>/<id>/mcp`: always 401, with `resource_metadata` naming its Protected Resource Metadata
 *   (RFC 9728), which names the case's authorization server. As the URL a source is moved to, it
 *   is the listener that must never receive a token.
 * - `<base>/<id>/as`: the authorization server (RFC 8414 metadata at
 *   `/.well-known/oauth-authorization-server/<id>/as`, Dynamic Client Registration, no metadata
 *   documents, RFC 9207 `iss` only when the case says so). Its authorization endpoint answers at
 *   once with a code (or the case's error), or — a mix-up attacker — relays the browser to an
 *   honest server with another client's id and redirect URI, keeping the gateway's `state` and PKCE
 *   challenge. Its token endpoint records what it is sent (a code and a PKCE verifier, in a mix-up)
 *   and answers the case's answer, by default `invalid_grant`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { CaseRecord, HostileCase } from "./hostile-oauth-case";
import { listenOnLoopback, readBody } from "./node-http";

const CASE = "[A-Za-z0-9_-]{1,64}";
const CONTROL = new RegExp(`^/test-control/(${CASE})$`);
const CASE_PATH = new RegExp(`^(?:/\\.well-known/[a-z-]+)?/(${CASE})/(mcp|as)(/.*)?$`);

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers }).end(JSON.stringify(body));
}

export function startHostileOAuth(port: number): Promise<Server> {
  const base = `http://127.0.0.1:${port}`;
  const cases = new Map<string, HostileCase>();
  const records = new Map<string, CaseRecord>();
  const recordOf = (id: string): CaseRecord => {
    const record = records.get(id) ?? { requests: [] };
    records.set(id, record);
    return record;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", base);
      const body = await readBody(req);
      const control = CONTROL.exec(url.pathname);
      if (control) {
        const id = control[1]!;
        if (req.method === "PUT") {
          cases.set(id, JSON.parse(body) as HostileCase);
          return void res.writeHead(204).end();
        }
        return json(res, 200, recordOf(id));
      }
      const match = CASE_PATH.exec(url.pathname);
      if (!match) return void res.writeHead(404).end();
      const id = match[1]!;
      const part = match[2]!;
      const rest = match[3] ?? "";
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : (value ?? "")]),
      );
      recordOf(id).requests.push({ method: req.method ?? "GET", path: `${url.pathname}${url.search}`, headers, body });
      const setup = cases.get(id) ?? {};
      const resource = `${base}/${id}/mcp`;
      const issuer = `${base}/${id}/as`;

      if (url.pathname === `/.well-known/oauth-protected-resource/${id}/mcp`) {
        return json(res, 200, { resource, authorization_servers: [issuer], scopes_supported: ["notes:read"] });
      }
      if (url.pathname === `/.well-known/oauth-authorization-server/${id}/as`) {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          revocation_endpoint: `${issuer}/revoke`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          ...(setup.advertiseIss ? { authorization_response_iss_parameter_supported: true } : {}),
        });
      }
      if (url.pathname.startsWith("/.well-known/")) return void res.writeHead(404).end();
      if (part === "mcp" && rest === "") {
        const challenge = `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/${id}/mcp"`;
        return json(res, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
      }
      if (part !== "as") return void res.writeHead(404).end();
      if (rest === "/register" && req.method === "POST") {
        const metadata = JSON.parse(body) as Record<string, unknown>;
        const clientId = `hostile-${id}-${randomBytes(6).toString("hex")}`;
        return json(res, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      if (rest === "/authorize") {
        const asked = url.searchParams;
        const state = asked.get("state") ?? "";
        if (setup.relay) {
          const relay = setup.relay;
          const onward = new URL(relay.authorizationEndpoint);
          for (const [name, value] of Object.entries({
            response_type: "code",
            client_id: relay.clientId,
            redirect_uri: relay.redirectUri,
            scope: relay.scope,
            resource: relay.resource,
            state,
            code_challenge: asked.get("code_challenge") ?? "",
            code_challenge_method: asked.get("code_challenge_method") ?? "S256",
          })) {
            onward.searchParams.set(name, value);
          }
          return void res.writeHead(302, { location: onward.href }).end();
        }
        const back = new URL(asked.get("redirect_uri") ?? "");
        const code = { code: randomBytes(16).toString("hex") };
        const answer: Record<string, string> = setup.authorizeError ? { ...setup.authorizeError } : code;
        const iss = setup.advertiseIss ? { iss: issuer } : {};
        for (const [name, value] of Object.entries({ ...answer, state, ...iss })) back.searchParams.set(name, value);
        return void res.writeHead(302, { location: back.href }).end();
      }
      if (rest === "/token" && req.method === "POST") {
        const invalidGrant = { status: 400, contentType: "application/json", body: JSON.stringify({ error: "invalid_grant" }) };
        const answer = setup.tokenAnswer ?? invalidGrant;
        return void res.writeHead(answer.status, { "content-type": answer.contentType, "cache-control": "no-store" }).end(answer.body);
      }
      if (rest === "/revoke" && req.method === "POST") return void res.writeHead(200).end();
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  return listenOnLoopback(server, port);
}
