/**
 * An upstream token is issued for one resource and never follows its source elsewhere. A source
 * connected over OAuth (the upstream Worker's /mcp/tasks and authorization server) has its URL changed —
 * over REST and with the admin tool — to a listener that records every request it receives (the
 * hostile server's MCP endpoint: 401, naming its own authorization server). The listener never sees
 * the token; the old tokens are revoked at the upstream Worker's authorization server; the source learns the
 * new URL's protection and needs connecting. Beneath that, a URL changed by any other path gets no
 * token either: the stored resource must cover the URL called, checked where each request leaves.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { isolateState } from "../../../workers/isolate-state";
import { callStatelessSource } from "../../../workers/gateway/calls/stateless-path";
import type { UpstreamConfig } from "../../../workers/gateway/sources/upstream.types";
import { callThroughGateway, connectGateway } from "../../helpers/gateway";
import { type HostileUpstream, hostileUpstream, receivedBy } from "../../helpers/hostile-oauth";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import {
  authorizationOf,
  connectedTasksSource,
  publishGatewayClientDocument,
  type StoredTokens,
  storedTokens,
} from "../../helpers/upstream-oauth";
import type { TestUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

const CLIENT_ID = "https://client-metadata.test/mcp-edge/gateway-client.json";
const TASKS_RESOURCE = `${UPSTREAM_ORIGIN}/mcp/tasks`;

beforeAll(async () => {
  await publishGatewayClientDocument();
});

/** Nothing the listener received carries an Authorization header or either token. */
async function expectNoTokenAt(listener: HostileUpstream, tokens: StoredTokens): Promise<void> {
  const received = await receivedBy(listener);
  for (const request of received) {
    expect(request.headers["authorization"], `${request.method} ${request.path}`).toBeUndefined();
    const seen = JSON.stringify(request);
    expect(seen).not.toContain(tokens.access_token);
    expect(seen).not.toContain(tokens.refresh_token!);
  }
}

/** Revoked at the upstream Worker's authorization server: the access token opens nothing, the refresh token is refused. */
async function expectRevokedUpstream(tokens: StoredTokens): Promise<void> {
  // The upstream Worker keeps no token cache in the tests (test/upstreams/upstream-worker.ts).
  const direct = await fetch(`${UPSTREAM_ORIGIN}/mcp/tasks`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(direct.status, "the old access token no longer works upstream").toBe(401);
  const refreshed = await fetch(`${UPSTREAM_ORIGIN}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: CLIENT_ID }).toString(),
  });
  expect(refreshed.status, "the old refresh token is refused upstream").toBe(400);
  expect((await refreshed.json<{ error: string }>()).error).toBe("invalid_grant");
}

/** After the move: the listener's protection, not connected, no tokens kept; a call asks to connect and sends nothing. */
async function expectEndedAndRelearned(owner: TestUser, sourceId: number, slug: string, listener: HostileUpstream): Promise<void> {
  expect(await authorizationOf(owner, sourceId)).toMatchObject({
    status: "needs_authorization",
    resource: listener.mcpUrl,
    authorization_server: listener.issuer,
    granted_scope: null,
  });
  expect(await storedTokens(owner.id, sourceId)).toBeNull();
  const before = (await receivedBy(listener)).length;
  const result = await callThroughGateway(owner, `${slug}__list_tasks`);
  expect(result.isError).toBe(true);
  expect(result._meta?.["error_type"], textOf(result)).toBe("authorization_required");
  expect((await receivedBy(listener)).length, "the call reached nothing").toBe(before);
}

describe("a change of a connected source's URL ends its upstream connection", () => {
  it("over REST: the new URL never sees the token, the old tokens are revoked upstream, the source needs connecting again", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    const listener = await hostileUpstream();

    const res = await api<{ source: { last_discovery_error: string | null } }>(owner, "PATCH", `/api/sources/${source.id}`, {
      body: { url: listener.mcpUrl },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source.last_discovery_error).toMatch(/^authorization_required: /);

    expect((await receivedBy(listener)).length, "rediscovery did reach the new URL").toBeGreaterThan(0);
    await expectNoTokenAt(listener, tokens);
    await expectRevokedUpstream(tokens);
    await expectEndedAndRelearned(owner, source.id, source.slug, listener);
    await expectNoTokenAt(listener, tokens);
  });

  it("with the admin tool gateway_update_source: the same", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    const listener = await hostileUpstream();
    const gateway = await connectGateway(owner);
    try {
      const changed = await gateway.callTool({ name: "gateway_update_source", arguments: { source_id: source.id, url: listener.mcpUrl } });
      expect(changed.isError, textOf(changed)).toBeFalsy();
    } finally {
      await gateway.close();
    }

    await expectNoTokenAt(listener, tokens);
    await expectRevokedUpstream(tokens);
    await expectEndedAndRelearned(owner, source.id, source.slug, listener);
  });

  it("a change that keeps the URL keeps the connection", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    const res = await api(owner, "PATCH", `/api/sources/${source.id}`, { body: { url: source.url, timeout_ms: 20_000 } });
    expect(res.status).toBe(200);
    expect((await authorizationOf(owner, source.id)).status).toBe("connected");
    expect((await storedTokens(owner.id, source.id))!.access_token).toBe(tokens.access_token);
  });
});

describe("a token goes only where its resource covers the URL called", () => {
  it("a URL changed behind the registry's back: calls and discovery withhold the token and ask to connect", async () => {
    const { owner, source, tokens } = await connectedTasksSource();
    const listener = await hostileUpstream();
    // What a path that forgot to end the connection would leave: the row still connected, for /mcp/tasks.
    await env.DB.prepare("UPDATE sources SET mcp_server_url = ? WHERE id = ?").bind(listener.mcpUrl, source.id).run();

    const result = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(result._meta?.["error_type"], textOf(result)).toBe("authorization_required");
    const refreshed = await api<{ source: { last_discovery_error: string | null } }>(owner, "POST", `/api/sources/${source.id}/refresh`);
    expect(refreshed.body.source.last_discovery_error).toMatch(/^authorization_required: /);

    expect(await receivedBy(listener)).toEqual([]);
    await expectNoTokenAt(listener, tokens);
  });

  it("the source's object and the stateless call path send nothing to a URL the token's resource does not cover", async () => {
    const listener = await hostileUpstream();
    const sourceId = 900_000 + Math.floor(Math.random() * 100_000);
    const object = env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(String(sourceId)));
    const config: UpstreamConfig = {
      sourceId,
      slug: "moved",
      url: listener.mcpUrl,
      headers: { Authorization: "Bearer token-for-mcp-tasks" },
      bearerResource: TASKS_RESOURCE,
      lifecycle: "transient",
      timeoutMs: 5000,
      allowPrivateUpstreams: true,
      fingerprint: `moved-${sourceId}`,
      transport: "streamable_http",
    };

    const called = await object.callTool(config, {
      name: "list_tasks",
      argumentsJson: "{}",
      idempotent: true,
      output: "none",
      maxResultBytes: 4_194_304,
    });
    expect(called.meta.error_type).toBe("authorization_required");
    expect(called.resultJson).toContain(`was made for ${TASKS_RESOURCE}, not for ${listener.mcpUrl}`);
    const discovered = await object.discover(config);
    expect(discovered.error).toMatchObject({ type: "authorization_required" });
    const stateless = await callStatelessSource(
      { fetch: (input, init) => fetch(input, init), breakers: isolateState.breakers, object: () => object, waitUntil: () => undefined },
      config,
      {
        name: "list_tasks",
        args: {},
        idempotent: true,
        output: "none",
        protocolVersion: "2025-11-25",
        discover: undefined,
        maxResultBytes: 4_194_304,
      },
    );
    expect(stateless.meta.error_type).toBe("authorization_required");
    expect(await receivedBy(listener), "nothing was sent").toEqual([]);

    // The same config for a resource that covers the URL does reach it, with its token: the check held the others back.
    await object.discover({ ...config, bearerResource: listener.mcpUrl, fingerprint: `covered-${sourceId}` });
    expect((await receivedBy(listener)).some((request) => request.headers["authorization"] === "Bearer token-for-mcp-tasks")).toBe(true);
  });
});
