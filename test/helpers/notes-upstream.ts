/**
 * The notes upstream of the auth tests (test/upstreams/oauth-resource-server.ts): an OAuth-protected
 * MCP server whose authorization server is another issuer than mcp-edge. Registering it as a
 * source, connecting an account there as a browser does, and the switch that makes its token
 * endpoint fail one client's refreshes for a while (test/upstreams/token-faults.ts).
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { secretBox } from "../../workers/gateway/sources/secrets";
import type { TokenFault } from "../upstreams/token-fault";
import { callThroughGateway, type SourceDetailBody } from "./gateway";
import { textOf } from "./mcp";
import { Browser } from "./oauth";
import { ProviderTab, signInAtProvider } from "./oidc";
import { api } from "./rest";
import { upstreams } from "./upstreams";
import { connectLink, followInBrowser, isUpstreamCallback } from "./upstream-oauth";
import type { TestUser } from "./users";

export async function registerNotes(owner: TestUser, url = upstreams().notes_mcp): Promise<SourceDetailBody["source"]> {
  const res = await api<SourceDetailBody>(owner, "POST", "/api/sources", {
    body: { name: `Notes ${crypto.randomUUID().slice(0, 6)}`, url },
  });
  expect(res.status).toBe(201);
  return res.body.source;
}

/** mcp-edge's start link → the notes issuer's login (as `subject`) and consent → the callback URL, unopened. */
export async function callbackFromIssuer(
  owner: TestUser,
  sourceId: number,
  subject: string,
  browser: Browser,
  body: Record<string, unknown> = {},
): Promise<URL> {
  const run = await followInBrowser(browser, await connectLink(owner, sourceId, body), owner);
  const atIssuer = run.visited.at(-1)!;
  expect(new URL(atIssuer).origin).toBe(upstreams().notes_issuer);
  const callback = await signInAtProvider(new ProviderTab(), atIssuer, subject);
  expect(isUpstreamCallback(callback.pathname), callback.href).toBe(true);
  return callback;
}

export async function connectNotes(owner: TestUser, sourceId: number, subject: string): Promise<void> {
  const browser = new Browser();
  const callback = await callbackFromIssuer(owner, sourceId, subject, browser);
  const done = await browser.get(`${callback.pathname}${callback.search}`);
  expect(done.status, (await done.clone().text()).slice(0, 400)).toBe(200);
}

/** The account the gateway called the notes upstream with (the subject of the token it sent). */
export async function whoami(owner: TestUser, slug: string): Promise<string> {
  const result = await callThroughGateway(owner, `${slug}__whoami`);
  expect(result.isError, textOf(result)).toBeFalsy();
  return textOf(result);
}

/** The client id the gateway registered at the notes issuer for this source (sealed in D1). */
export async function notesClientId(ownerId: number, sourceId: number): Promise<string> {
  const row = await env.DB.prepare("SELECT client_information FROM source_authorizations WHERE source_id = ?")
    .bind(sourceId)
    .first<{ client_information: string }>();
  const client = JSON.parse(
    await secretBox(env.SOURCE_SECRETS_KEY).open(ownerId, `:oauth:client:${sourceId}`, row!.client_information),
  ) as { client_id: string };
  return client.client_id;
}

function faultUrl(clientId: string): string {
  return `${upstreams().notes_issuer}/test-control/token-fault/${encodeURIComponent(clientId)}`;
}

/** From now on the notes issuer fails this client's refreshes as `fault` says. */
export async function failRefreshes(clientId: string, fault: TokenFault): Promise<void> {
  expect((await fetch(faultUrl(clientId), { method: "PUT", body: JSON.stringify(fault) })).status).toBe(204);
}

/** The notes issuer answers this client's refreshes again; how many it failed meanwhile. */
export async function answerRefreshes(clientId: string): Promise<number> {
  const res = await fetch(faultUrl(clientId), { method: "DELETE" });
  expect(res.status).toBe(200);
  return (await res.json<{ failed: number }>()).failed;
}
