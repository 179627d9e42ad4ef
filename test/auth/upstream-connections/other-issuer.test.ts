/**
 * A second OAuth-protected upstream whose authorization server is another issuer than mcp-edge:
 * a real oidc-provider issuing JWT access tokens for a small MCP resource server that checks them
 * (test/upstreams/oauth-resource-server.ts). It takes no metadata documents, so the gateway
 * registers by Dynamic Client Registration; its tokens and registration are bound to its issuer,
 * and a callback claiming another issuer (RFC 9207 `iss`) is refused.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectGateway, type SourceDetailBody } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { callbackFromIssuer, connectNotes, notesClientId, registerNotes, whoami } from "../../helpers/notes-upstream";
import { Browser } from "../../helpers/oauth";
import { ProviderTab, signInAtProvider } from "../../helpers/oidc";
import { api } from "../../helpers/rest";
import { upstreams } from "../../helpers/upstreams";
import { authorizationOf, expireAccessToken, followInBrowser, storedTokens } from "../../helpers/upstream-oauth";
import { createUser } from "../../helpers/users";

describe("an upstream whose authorization server is another issuer", () => {
  it("registers as needs_authorization, connects by DCR, and calls with the account the user signed in with", async () => {
    const owner = await createUser();
    const source = await registerNotes(owner);
    expect(source.last_discovery_error).toMatch(/^authorization_required: /);
    expect(await authorizationOf(owner, source.id)).toMatchObject({
      status: "needs_authorization",
      authorization_server: upstreams().notes_issuer,
      resource: upstreams().notes_mcp,
    });

    await connectNotes(owner, source.id, "carol-at-notes");
    const authorization = await authorizationOf(owner, source.id);
    expect(authorization).toMatchObject({ status: "connected", client_identification: "dynamic_registration" });
    expect(await whoami(owner, source.slug)).toBe("carol-at-notes");
    // The tokens and the registration are stamped with the issuer that made them.
    expect((await storedTokens(owner.id, source.id)) as unknown).toMatchObject({ issuer: upstreams().notes_issuer });
  });

  it("two users of the same upstream connect different accounts and each calls with their own", async () => {
    const alice = await createUser();
    const bob = await createUser();
    const aliceSource = await registerNotes(alice);
    const bobSource = await registerNotes(bob);
    await connectNotes(alice, aliceSource.id, "alice-at-notes");
    await connectNotes(bob, bobSource.id, "bob-at-notes");
    expect(await whoami(alice, aliceSource.slug)).toBe("alice-at-notes");
    expect(await whoami(bob, bobSource.slug)).toBe("bob-at-notes");
  });

  it("a callback whose iss names another issuer is refused (mix-up defence, RFC 9207)", async () => {
    const owner = await createUser();
    const source = await registerNotes(owner);
    const browser = new Browser();
    const callback = await callbackFromIssuer(owner, source.id, "dave-at-notes", browser);
    expect(callback.searchParams.get("iss")).toBe(upstreams().notes_issuer);
    callback.searchParams.set("iss", "http://localhost");
    const refused = await browser.get(`${callback.pathname}${callback.search}`);
    expect(refused.status).toBe(502);
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
    expect(await storedTokens(owner.id, source.id)).toBeNull();
  });

  it("step-up: a 403 insufficient_scope asks for notes:write, and connecting with it lets the call through", async () => {
    const owner = await createUser();
    const source = await registerNotes(owner);
    await connectNotes(owner, source.id, "erin-at-notes");
    const gateway = await connectGateway(owner);
    const refused = await gateway.callTool({ name: `${source.slug}__add_note`, arguments: { text: "hi" } });
    const meta = refused._meta as { error_type: string; authorization: { scope: string; url: string } };
    expect(meta.error_type).toBe("authorization_required");
    expect(meta.authorization.scope.split(" ").sort()).toEqual(["notes:read", "notes:write"]);

    const browser = new Browser();
    const run = await followInBrowser(browser, meta.authorization.url, owner);
    const atIssuer = new URL(run.visited.at(-1)!);
    // The SDK adds offline_access where the server offers it (so it issues a refresh token).
    expect(atIssuer.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["notes:read", "notes:write"]));
    const callback = await signInAtProvider(new ProviderTab(), atIssuer.href, "erin-at-notes");
    expect((await browser.get(`${callback.pathname}${callback.search}`)).status).toBe(200);
    const added = await gateway.callTool({ name: `${source.slug}__add_note`, arguments: { text: "hi" } });
    expect(added.isError, textOf(added)).toBeFalsy();
    await gateway.close();
  });

  it("a sessionful upstream is called through the source's object with the owner's token per call, refreshed, never stored there", async () => {
    const owner = await createUser();
    const source = await registerNotes(owner, upstreams().notes_mcp.replace(/\/mcp$/, "/sessions/mcp"));
    await connectNotes(owner, source.id, "grace-at-notes");
    const kind = await env.DB.prepare("SELECT upstream_kind FROM sources WHERE id = ?").bind(source.id).first<{ upstream_kind: string }>();
    expect(kind?.upstream_kind).toBe("sessionful");
    expect(await whoami(owner, source.slug)).toBe("grace-at-notes");

    const before = await storedTokens(owner.id, source.id);
    await expireAccessToken(source.id);
    expect(await whoami(owner, source.slug)).toBe("grace-at-notes");
    const after = await storedTokens(owner.id, source.id);
    expect(after!.access_token).not.toBe(before!.access_token);

    const object = env.GATEWAY_SOURCE.get(env.GATEWAY_SOURCE.idFromName(String(source.id)));
    const stored = await runInDurableObject(object, async (_instance, state) => JSON.stringify([...(await state.storage.list())]));
    expect(stored).toContain("session");
    for (const token of [before!.access_token, after!.access_token, after!.refresh_token!]) expect(stored).not.toContain(token);
  });

  it("never fetches an authorization server the source URL rules refuse (a metadata address named by the upstream)", async () => {
    const owner = await createUser();
    const res = await api<SourceDetailBody>(owner, "POST", "/api/sources", {
      body: { name: "Misleading", url: upstreams().notes_mcp.replace(/\/mcp$/, "/mislead/mcp") },
    });
    expect(res.status).toBe(201);
    // Not recorded as an OAuth source: its 401 stays an ordinary failure.
    expect(res.body.source.last_discovery_error).toMatch(/^unauthorized: /);
    expect((await api(owner, "GET", `/api/sources/${res.body.source.id}/authorization`)).status).toBe(404);
    const row = await env.DB.prepare("SELECT upstream_auth FROM sources WHERE id = ?")
      .bind(res.body.source.id)
      .first<{ upstream_auth: string }>();
    expect(row?.upstream_auth).toBe("none");
  });

  it("disconnect revokes the refresh token at the other issuer", async () => {
    const owner = await createUser();
    const source = await registerNotes(owner);
    await connectNotes(owner, source.id, "frank-at-notes");
    const tokens = await storedTokens(owner.id, source.id);
    const clientId = await notesClientId(owner.id, source.id);

    const res = await api<{ revoked: boolean }>(owner, "DELETE", `/api/sources/${source.id}/authorization`);
    expect(res.status).toBe(200);
    const refresh = await fetch(`${upstreams().notes_issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens!.refresh_token!, client_id: clientId }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe("invalid_grant");
  });
});
