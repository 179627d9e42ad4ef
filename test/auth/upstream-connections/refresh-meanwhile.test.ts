/**
 * The connection changed while a refresh of its upstream token ran: the refresh's outcome is
 * written only onto the tokens it started from, and the call answers with the connection as it is
 * now — the owner's new connection, or, after a disconnect, a request to connect (never the
 * state the refresh started from). Against the notes issuer (a real oidc-provider).
 */
import { describe, expect, it } from "vitest";
import type { OAuthFetch } from "../../../workers/upstream-connections/oauth-fetch";
import { connectedNotes, workerConnections } from "../../helpers/notes-refresh";
import { answerRefreshes, connectNotes, failRefreshes, whoami } from "../../helpers/notes-upstream";
import { api } from "../../helpers/rest";
import { authorizationOf, expireAccessToken, storedTokens } from "../../helpers/upstream-oauth";

type Network = OAuthFetch;

/** The network, with `meanwhile` run once around the first refresh request: before it is sent, or after its answer came. */
function aroundFirstRefresh(when: "before" | "after", meanwhile: () => Promise<void>): { fetch: Network; ran: () => boolean } {
  let ran = false;
  const fetch: Network = async (input, init) => {
    // The OAuth exchange hands its requests over as Request objects (oauth-fetch.ts).
    const body = input instanceof Request ? await input.clone().text() : String(init?.body ?? "");
    const first = !ran && body.includes("grant_type=refresh_token");
    if (first) ran = true;
    if (first && when === "before") await meanwhile();
    const response = await globalThis.fetch(input, init);
    if (first && when === "after") await meanwhile();
    return response;
  };
  return { fetch, ran: () => ran };
}

describe("the connection changed while a refresh ran", () => {
  it("the owner disconnected while a refresh that succeeds ran: the call asks to connect, the refreshed tokens are not kept", async () => {
    const { owner, source } = await connectedNotes();
    await expireAccessToken(source.id);
    const around = aroundFirstRefresh("after", async () => {
      const res = await api<{ disconnected: boolean }>(owner, "DELETE", `/api/sources/${source.id}/authorization`);
      expect(res.body).toMatchObject({ disconnected: true });
    });

    const answer = await workerConnections({ fetch: around.fetch }).bearer({ id: source.id, userId: owner.id, mcpServerUrl: source.url });
    expect(around.ran(), "the refresh sent its token request").toBe(true);
    // Not authorization_expired: nothing expired, the owner chose to disconnect.
    expect(answer).toEqual({ state: "needs_authorization", scope: undefined });
    expect(await authorizationOf(owner, source.id)).toMatchObject({ status: "needs_authorization", granted_scope: null });
    expect(await storedTokens(owner.id, source.id)).toBeNull();
  });

  it("a refusal that arrives after the owner connected again leaves the new connection alone", async () => {
    const { owner, source, clientId, tokens } = await connectedNotes();
    await failRefreshes(clientId, { status: 400, body: JSON.stringify({ error: "invalid_grant" }) });
    await expireAccessToken(source.id);
    // The owner signs in again (as another account) while the refresh's token request is on its way.
    const newSubject = `again-${crypto.randomUUID().slice(0, 8)}`;
    const around = aroundFirstRefresh("before", () => connectNotes(owner, source.id, newSubject));

    const answer = await workerConnections({ fetch: around.fetch }).bearer({ id: source.id, userId: owner.id, mcpServerUrl: source.url });
    expect(around.ran(), "the refresh sent its token request").toBe(true);
    const now = await storedTokens(owner.id, source.id);
    expect(now, "the new connection's tokens are kept").not.toBeNull();
    expect(now!.access_token).not.toBe(tokens.access_token);
    expect(answer).toEqual({ token: now!.access_token, resource: source.url });
    expect(await authorizationOf(owner, source.id)).toMatchObject({ status: "connected", last_error: null });
    await answerRefreshes(clientId);
    expect(await whoami(owner, source.slug)).toBe(newSubject);
  });
});
