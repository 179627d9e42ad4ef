/**
 * The gateway's vocabulary is the gateway's (decision 0051): a hostile upstream whose result, without
 * `isError`, carries the gateway's own `_meta` words (`error_type: authorization_required` with a link
 * to its own site, `source`, `execution_time_ms`, `required_scope`, an `mcp-edge/` key) or a 2026-07-28
 * `input_required` asking to open its link, never makes /mcp ask the client to open anything, and
 * none of those words reach the answer's `_meta`. Checked on each call path — the stateless one
 * (its fast path and the SDK path) and the sessionful one through the source's Durable Object — for
 * 2025-11-25 and 2026-07-28 clients that declare URL elicitation. The genuine authorization_required
 * answer still asks: test/auth/upstream-connections/elicitation.test.ts.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BreakerView } from "../../../workers/gateway/calls/breaker-view";
import { CallableToolCache } from "../../../workers/gateway/calls/callable-cache";
import { SourceCalls } from "../../../workers/gateway/calls/source-calls.service";
import type { UpstreamAuthorizer } from "../../../workers/gateway/authorization/upstream-authorization";
import { openDb } from "../../../workers/lib/db";
import { sourceRow } from "../../helpers/gateway";
import { textOf, workerFetch } from "../../helpers/mcp";
import { type JsonRpcResponse, rpcRequest, rpcResponse } from "../../helpers/rpc";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

/** Where the fixture's spoofed answers point (test/upstreams/fixture-hostile-results.ts). */
const ATTACKER_URL = "https://attacker.example/phish";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const PATHS = [
  { path: "stateless", behaviour: "spoof-meta", kind: "stateless" },
  { path: "sessionful", behaviour: "spoof-meta-sessions", kind: "sessionful" },
] as const;

async function spoofingSource(owner: TestUser, behaviour: string, kind: string): Promise<string> {
  const { status, body } = await registerSource(owner, fixtureUrl(behaviour), { name: `Spoof ${crypto.randomUUID().slice(0, 6)}` });
  expect(status, JSON.stringify(body)).toBe(201);
  expect(body.source.last_discovery_error).toBeNull();
  // Which call path the source takes is what discovery learned.
  expect((await sourceRow(body.source.id))["upstream_kind"]).toBe(kind);
  return body.source.slug;
}

/** A 2026-07-28 client that takes URL elicitations and records every one it is asked. */
async function modernClient(owner: TestUser): Promise<{ client: Client; asked: unknown[] }> {
  const client = new Client(
    { name: "vocabulary-test", version: "1.0.0" },
    { capabilities: { elicitation: { url: {}, form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const asked: unknown[] = [];
  client.setRequestHandler("elicitation/create", (request) => {
    asked.push(request.params);
    return { action: "accept" };
  });
  const url = new URL("http://localhost/mcp");
  const transport = new StreamableHTTPClientTransport(url, { fetch: workerFetch, requestInit: { headers: owner.headers } });
  await client.connect(transport);
  return { client, asked };
}

/** A raw 2025-11-25 tools/call; `declaresUrlElicitation` sends the capability the -32042 error needs (and skips the fast path). */
async function legacyCall(owner: TestUser, name: string, declaresUrlElicitation: boolean): Promise<JsonRpcResponse> {
  const meta = declaresUrlElicitation ? { _meta: { [CLIENT_CAPABILITIES]: { elicitation: { url: {} } } } } : {};
  const request = rpcRequest("/mcp", owner.token, "2025-11-25", { method: "tools/call", params: { name, arguments: {}, ...meta } });
  return rpcResponse(await workerFetch(request));
}

/** The gateway's own stamp on every 2026-07-28 answer. */
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** The answer's `_meta` holds the gateway's own words only, and the upstream's own key. */
function expectGatewayMeta(meta: Record<string, unknown> | undefined, slug: string): void {
  expect(JSON.stringify(meta)).not.toContain(ATTACKER_URL);
  const { [SERVER_INFO]: serverInfo, ...rest } = meta ?? {};
  if (serverInfo !== undefined) expect(serverInfo).toMatchObject({ name: "mcp-edge-gateway" });
  expect(rest).toEqual({ "fixture/own": "kept", source: slug, execution_time_ms: expect.any(Number) });
}

describe.each(PATHS)("an upstream speaking the gateway's vocabulary ($path path)", ({ behaviour, kind }) => {
  it("2025-11-25: no -32042, whether or not the request declares URL elicitation; the _meta is the gateway's", async () => {
    const owner = await createUser();
    const slug = await spoofingSource(owner, behaviour, kind);
    for (const declared of [true, false]) {
      const answer = await legacyCall(owner, `${slug}__spoof_authorization`, declared);
      expect(answer.error, JSON.stringify(answer)).toBeUndefined();
      expect(answer.result?.["isError"]).toBeUndefined();
      expectGatewayMeta(answer.result?.["_meta"] as Record<string, unknown> | undefined, slug);
      expect(answer.result?.["content"]).toEqual([{ type: "text", text: "an ordinary answer" }]);
    }
  });

  it("2026-07-28: a client taking URL elicitation is never asked; the _meta is the gateway's", async () => {
    const owner = await createUser();
    const slug = await spoofingSource(owner, behaviour, kind);
    const { client, asked } = await modernClient(owner);
    const result = await client.callTool({ name: `${slug}__spoof_authorization`, arguments: {} });
    expect(asked).toEqual([]);
    expect(result.isError).toBeFalsy();
    expectGatewayMeta(result._meta, slug);
    await client.close();
  });

  it("an upstream's input_required result is passed on as a plain result, never as the gateway's request for input", async () => {
    const owner = await createUser();
    const slug = await spoofingSource(owner, behaviour, kind);
    const { client, asked } = await modernClient(owner);
    const result = await client.callTool({ name: `${slug}__spoof_input_required`, arguments: {} });
    expect(asked).toEqual([]);
    expect(textOf(result)).toBe("open the link");
    expect(JSON.stringify(result)).not.toContain(ATTACKER_URL);
    await client.close();

    const legacy = await legacyCall(owner, `${slug}__spoof_input_required`, true);
    expect(legacy.error, JSON.stringify(legacy)).toBeUndefined();
    expect(JSON.stringify(legacy.result)).not.toContain(ATTACKER_URL);
    expect(legacy.result).not.toHaveProperty("inputRequests");
  });
});

describe("the gateway's own request to connect", () => {
  /** SourceCalls as the Worker wires it, on origin http://localhost, with an authorizer whose connect link is `link`. */
  function callsWithLink(link: string): SourceCalls {
    const authorizer: UpstreamAuthorizer = {
      bearer: async () => ({ state: "needs_authorization", scope: undefined }),
      needsScope: async () => ({ state: "needs_authorization", scope: undefined }),
      learnProtection: async () => false,
      connectLink: () => link,
      disconnect: async () => ({ revoked: false }),
      endForUrlChange: async () => false,
    };
    return new SourceCalls({
      db: openDb(env.DB),
      env,
      upstreamFetch: (input, init) => fetch(input, init),
      audit: { record: () => undefined },
      breakers: new BreakerView(),
      callables: new CallableToolCache(),
      waitUntil: () => undefined,
      authorizer,
      ownOrigin: "http://localhost",
    });
  }

  it("is made only with a connect link on the gateway's own origin", async () => {
    const owner = await createUser();
    const { body } = await registerSource(owner, fixtureUrl("echo"), { name: `Oauth ${crypto.randomUUID().slice(0, 6)}` });
    // As a discovery that met MCP authorization would have marked it: calls need the owner's token.
    await env.DB.prepare("UPDATE sources SET upstream_auth = 'oauth' WHERE id = ?").bind(body.source.id).run();
    const name = `${body.source.slug}__echo`;
    const ask = async (link: string) => {
      const calls = callsWithLink(link);
      const target = await calls.find(owner.id, name);
      if (!target) throw new Error(`${name} is not callable`);
      return calls.call(owner.id, target, {});
    };

    const own = await ask(`http://localhost/oauth/upstream/connect?source_id=${body.source.id}`);
    expect(own.meta.error_type).toBe("authorization_required");
    const link = `http://localhost/oauth/upstream/connect?source_id=${body.source.id}`;
    expect(own.connect).toEqual({ state: "needs_authorization", url: link, scope: null });

    for (const foreign of [ATTACKER_URL, "http://user:pass@localhost/oauth/upstream/connect", "not a url"]) {
      const answered = await ask(foreign);
      expect(answered.meta.error_type).toBe("authorization_required");
      expect(answered.connect).toBeUndefined();
    }
  });
});
