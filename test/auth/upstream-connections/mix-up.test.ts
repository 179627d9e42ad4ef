/**
 * Mix-up (RFC 9700 §4.4) against real servers: an honest authorization server that neither
 * advertises nor sends RFC 9207 `iss` (oidc-provider, test/upstreams/oauth-resource-server.ts
 * `withoutIss`) protecting an honest MCP server, and an attacker's MCP server whose metadata names
 * the attacker's authorization server (test/upstreams/hostile-oauth.ts), which relays the user's
 * browser to the honest one with the gateway's own registration there. The honest answer comes back
 * to the gateway's redirect URI for the honest server, not the one the attacker's flow was sent
 * with, so it is refused: the attacker's token endpoint never receives the code or the verifier.
 * A server that does not advertise `iss` is named in a warning, over REST and on the connect page.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { secretBox } from "../../../workers/gateway/sources/secrets";
import type { SourceDetailBody } from "../../helpers/gateway";
import { hostileUpstream, receivedAt, receivedBy } from "../../helpers/hostile-oauth";
import { whoami } from "../../helpers/notes-upstream";
import { Browser } from "../../helpers/oauth";
import { ProviderTab, signInAtProvider } from "../../helpers/oidc";
import { api } from "../../helpers/rest";
import { upstreams } from "../../helpers/upstreams";
import {
  authorizationOf,
  connectLink,
  followInBrowser,
  isUpstreamCallback,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
  storedTokens,
} from "../../helpers/upstream-oauth";
import { createUser, type TestUser } from "../../helpers/users";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

async function register(owner: TestUser, url: string): Promise<SourceDetailBody["source"]> {
  const name = `Mixed ${crypto.randomUUID().slice(0, 6)}`;
  const res = await api<SourceDetailBody>(owner, "POST", "/api/sources", { body: { name, url } });
  expect(res.status).toBe(201);
  return res.body.source;
}

/** The client the gateway holds for a source (sealed in D1): its id and the redirect URIs it registered. */
async function clientOf(ownerId: number, sourceId: number): Promise<{ client_id: string; redirect_uris: string[] }> {
  const row = await env.DB.prepare("SELECT client_information FROM source_authorizations WHERE source_id = ?")
    .bind(sourceId)
    .first<{ client_information: string }>();
  return JSON.parse(await secretBox(env.SOURCE_SECRETS_KEY).open(ownerId, `:oauth:client:${sourceId}`, row!.client_information)) as {
    client_id: string;
    redirect_uris: string[];
  };
}

/** Connects the owner's honest source at the honest server, as a browser does it. */
async function connectHonestly(owner: TestUser, sourceId: number, subject: string): Promise<void> {
  const browser = new Browser();
  const run = await followInBrowser(browser, await connectLink(owner, sourceId), owner);
  const callback = await signInAtProvider(new ProviderTab(), run.visited.at(-1)!, subject);
  const done = await browser.get(`${callback.pathname}${callback.search}`);
  expect(done.status, (await done.clone().text()).slice(0, 300)).toBe(200);
}

describe("mix-up: an attacker's authorization server relaying to an honest one that sends no iss", () => {
  it("the honest answer is refused at the gateway: the attacker's token endpoint never receives the code or the verifier", async () => {
    const owner = await createUser();
    // The owner's honest source, connected: the gateway is registered (DCR) at the honest server.
    const honest = await register(owner, upstreams().plain_mcp);
    await connectHonestly(owner, honest.id, "victim-at-plain");
    const registered = await clientOf(owner.id, honest.id);
    const discovered = await fetch(`${upstreams().plain_issuer}/.well-known/openid-configuration`);
    const honestMetadata = await discovered.json<Record<string, unknown>>();
    expect(honestMetadata["authorization_response_iss_parameter_supported"], "the honest server does not advertise iss").toBeUndefined();

    // The attacker relays the browser to the honest server with the gateway's registration there
    // (its id and redirect URI are no secret), keeping the gateway's state and PKCE challenge.
    const attacker = await hostileUpstream({
      relay: {
        authorizationEndpoint: String(honestMetadata["authorization_endpoint"]),
        clientId: registered.client_id,
        redirectUri: registered.redirect_uris[0]!,
        resource: upstreams().plain_mcp,
        scope: "notes:read",
      },
    });
    const malicious = await register(owner, attacker.mcpUrl);
    const learned = await authorizationOf(owner, malicious.id);
    expect(learned).toMatchObject({ status: "needs_authorization", authorization_server: attacker.issuer });

    const browser = new Browser();
    const run = await followInBrowser(browser, await connectLink(owner, malicious.id), owner);
    const toAttacker = run.visited.at(-1)!;
    expect(new URL(toAttacker).origin).toBe(upstreams().hostile_oauth);
    const relayed = await fetch(toAttacker, { redirect: "manual" });
    expect(relayed.status).toBe(302);
    const toHonest = relayed.headers.get("location")!;
    expect(new URL(toHonest).origin).toBe(upstreams().plain_issuer);
    // The user signs in at the honest server, which answers the gateway without iss.
    const callback = await signInAtProvider(new ProviderTab(), toHonest, "victim-at-plain");
    expect(isUpstreamCallback(callback.pathname)).toBe(true);
    expect(callback.searchParams.has("iss")).toBe(false);
    expect(callback.searchParams.get("code")).toBeTruthy();

    const answered = await browser.get(`${callback.pathname}${callback.search}`);
    const page = await answered.text();
    expect(await receivedAt(attacker, "/token"), "the attacker's token endpoint received nothing").toEqual([]);
    const everything = JSON.stringify(await receivedBy(attacker));
    expect(everything).not.toContain(callback.searchParams.get("code")!);
    expect(answered.status, page.slice(0, 400)).toBe(403);
    expect(page).toContain("did not come back the way this connect was sent out");
    expect(await storedTokens(owner.id, malicious.id)).toBeNull();
    expect(await authorizationOf(owner, malicious.id)).toMatchObject({ status: "needs_authorization" });
    // The honest connection is untouched.
    expect(await whoami(owner, honest.slug)).toBe("victim-at-plain");
  });

  it("a client registered at one server has that server's own redirect URI, another server's differs", async () => {
    const owner = await createUser();
    const attacker = await hostileUpstream();
    const source = await register(owner, attacker.mcpUrl);
    const run = await followInBrowser(new Browser(), await connectLink(owner, source.id), owner);
    const sent = new URL(run.visited.at(-1)!).searchParams.get("redirect_uri")!;
    expect(isUpstreamCallback(new URL(sent).pathname)).toBe(true);
    expect(new URL(sent).pathname).not.toBe("/oauth/upstream/callback");
    const registration = JSON.parse((await receivedAt(attacker, "/register"))[0]!.body) as { redirect_uris: string[] };
    expect(registration.redirect_uris).toEqual([sent]);
    expect((await authorizationOf(owner, source.id)).redirect_uri).toBe(sent);

    const other = await hostileUpstream();
    const otherSource = await register(owner, other.mcpUrl);
    expect((await authorizationOf(owner, otherSource.id)).redirect_uri).not.toBe(sent);
  });
});

describe("an authorization server that does not advertise iss", () => {
  it("is named in a warning over REST and on the connect page; one that does is not", async () => {
    const owner = await createUser();
    const attacker = await hostileUpstream();
    const source = await register(owner, attacker.mcpUrl);
    const authorization = await authorizationOf(owner, source.id);
    expect(authorization.warnings).toHaveLength(1);
    expect(authorization.warnings[0]).toContain(`The authorization server ${attacker.issuer} does not advertise RFC 9207`);
    expect(authorization.warnings[0]).toContain(authorization.redirect_uri!);

    const browser = new Browser();
    const page = await followInBrowser(browser, `/oauth/upstream/connect?source_id=${source.id}`, owner, { stopAtConfirmation: true });
    expect(page.finalHtml).toContain("does not advertise RFC 9207");
    expect(page.finalHtml).toContain(`check that the sign-in page you reach belongs to ${new URL(attacker.issuer).host}`);

    // The upstream Worker's authorization server (mcp-edge's own code) advertises iss: no warning.
    const { source: tasks } = await registerOAuthTasksSource(owner);
    expect((await authorizationOf(owner, tasks.id)).warnings).toEqual([]);
    const tasksPage = await followInBrowser(browser, `/oauth/upstream/connect?source_id=${tasks.id}`, owner, { stopAtConfirmation: true });
    expect(tasksPage.finalHtml).toContain('value="connect_upstream"');
    expect(tasksPage.finalHtml).not.toContain("RFC 9207");
  });
});
