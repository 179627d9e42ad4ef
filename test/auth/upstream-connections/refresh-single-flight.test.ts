/**
 * One refresh of a (user, source)'s upstream token at a time, across isolates: calls that find the
 * access token expired together spend its refresh token once (the source's Durable Object is the
 * gate), so an authorization server that ends a grant on a replayed refresh token — mcp-edge's own,
 * here the upstream Worker's — keeps it. The calls here run in one isolate, which is no shortcut: the isolate keeps no refresh
 * of its own to share, so each call goes through the gate as a call in another isolate would.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { callThroughGateway, connectGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import {
  authorizationOf,
  connectedTasksSource,
  expireAccessToken,
  publishGatewayClientDocument,
  refreshTokensIssued,
  storedTokens,
} from "../../helpers/upstream-oauth";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

function sourceObject(sourceId: number) {
  return env.UPSTREAM_REFRESH_LEASE.get(env.UPSTREAM_REFRESH_LEASE.idFromName(String(sourceId)));
}

describe("refreshing an upstream token once", () => {
  it("three calls that find the access token expired at once refresh it once; the grant lives on", async () => {
    const { owner, source, tokens: connected } = await connectedTasksSource();
    expect(await refreshTokensIssued(connected.refresh_token!)).toBe(1);
    await expireAccessToken(source.id);

    // Connected first, so the three tool calls start together.
    const gateways = await Promise.all([connectGateway(owner), connectGateway(owner), connectGateway(owner)]);
    try {
      const results = await Promise.all(gateways.map((gateway) => gateway.callTool({ name: `${source.slug}__list_tasks`, arguments: {} })));
      for (const result of results) expect(result.isError, textOf(result)).toBeFalsy();
    } finally {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    }

    const refreshed = await storedTokens(owner.id, source.id);
    expect(refreshed!.refresh_token).not.toBe(connected.refresh_token);
    expect(await refreshTokensIssued(refreshed!.refresh_token!), "the code exchange's refresh token and one refresh's").toBe(2);
    expect((await sourceObject(source.id).status()).rpc["beginTokenRefresh"]).toBe(3);

    // The stored refresh token is the one the authorization server holds current: the next refresh works.
    await expireAccessToken(source.id);
    const later = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(later.isError, textOf(later)).toBeFalsy();
    expect((await authorizationOf(owner, source.id)).status).toBe("connected");
    expect(await refreshTokensIssued((await storedTokens(owner.id, source.id))!.refresh_token!)).toBe(3);
  });

  it("a holder that never ends its lease holds the gate only until the lease runs out", async () => {
    const object = sourceObject(900_001);
    const holder = await object.beginTokenRefresh(7, 300);
    expect(holder).toEqual(expect.any(String));
    // A waiter is let go when the lease runs out, and told to read again (no lease of its own)…
    expect(await object.beginTokenRefresh(7, 300)).toBeNull();
    // …after which the gate is free; the late holder's end does not release the new holder's lease.
    const next = await object.beginTokenRefresh(7, 60_000);
    expect(next).toEqual(expect.any(String));
    object.endTokenRefresh(7, holder!);
    const waiting = object.beginTokenRefresh(7, 60_000);
    await object.endTokenRefresh(7, next!);
    expect(await waiting).toBeNull();
    // Another user's refresh of the same source is not held up by this one's.
    expect(await object.beginTokenRefresh(8, 60_000)).toEqual(expect.any(String));
  });
});
