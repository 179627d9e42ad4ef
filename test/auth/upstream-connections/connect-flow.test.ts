/**
 * Connecting an OAuth-protected upstream, end to end against real components: the upstream is the
 * upstream Worker's /mcp/tasks (this same Worker deployed at another origin), whose authorization
 * server is that Worker's own, a separate issuer; the gateway identifies itself with its Client ID
 * Metadata Document, which that server fetches from the reserved test host. The browser is scripted
 * hop by hop (redirects, sign-in at both Workers, consent, callback).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { callThroughGateway, connectGateway, type SourceDetailBody } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { Browser } from "../../helpers/oauth";
import { api } from "../../helpers/rest";
import {
  authorizationOf,
  connectLink,
  connectSource,
  followInBrowser,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
  storedTokens,
} from "../../helpers/upstream-oauth";
import { createUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

describe("registering an OAuth-protected upstream", () => {
  it("records needs_authorization with the authorization server and scopes it discovered, instead of failing", async () => {
    const owner = await createUser();
    const { source, tools } = await registerOAuthTasksSource(owner);
    expect(tools).toEqual([]);
    expect(source.last_discovery_error).toMatch(/^authorization_required: .*\/oauth\/upstream\/connect\?source_id=/);
    const authorization = await authorizationOf(owner, source.id);
    expect(authorization).toMatchObject({
      status: "needs_authorization",
      authorization_server: UPSTREAM_ORIGIN,
      resource: `${UPSTREAM_ORIGIN}/mcp/tasks`,
    });
    expect(authorization.scopes_supported).toContain("tasks:read");
    const health = await api<{ state: string; authorization: string }>(owner, "GET", `/api/sources/${source.id}/health`);
    expect(health.body).toMatchObject({ state: "needs_authorization", authorization: "needs_authorization" });
  });

  it("serves the gateway's Client ID Metadata Document: its own URL as client_id, the upstream callback as its one redirect URI", async () => {
    const document = await publishGatewayClientDocument();
    expect(document).toMatchObject({
      client_id: "https://client-metadata.test/mcp-edge/gateway-client.json",
      redirect_uris: ["http://localhost/oauth/upstream/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    });
  });
});

describe("connecting", () => {
  it("signs in, consents at the upstream, comes back connected with its tools discovered and callable", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const run = await connectSource(owner, source.id);
    expect(run.consentShown).toBe(true);
    // mcp-edge's start link → (sign-in) → the upstream's /authorize with PKCE S256 and resource → the callback.
    const authorize = new URL(
      run.visited.find((url) => new URL(url).pathname === "/authorize" && new URL(url).searchParams.has("code_challenge"))!,
    );
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.origin).toBe(UPSTREAM_ORIGIN);
    expect(authorize.searchParams.get("resource")).toBe(`${UPSTREAM_ORIGIN}/mcp/tasks`);
    expect(authorize.searchParams.get("client_id")).toBe("https://client-metadata.test/mcp-edge/gateway-client.json");
    expect(authorize.searchParams.get("redirect_uri")).toBe("http://localhost/oauth/upstream/callback");

    const authorization = await authorizationOf(owner, source.id);
    expect(authorization).toMatchObject({ status: "connected", client_identification: "metadata_document", last_error: null });
    expect(authorization.expires_at).toEqual(expect.any(String));
    const detail = await api<SourceDetailBody>(owner, "GET", `/api/sources/${source.id}`);
    expect(detail.body.source.last_discovery_error).toBeNull();
    expect(detail.body.tools.map((tool) => tool.name)).toContain("list_tasks");
    expect((await api<{ state: string }>(owner, "GET", `/api/sources/${source.id}/health`)).body.state).toBe("healthy");

    const listed = await callThroughGateway(owner, `${source.slug}__list_tasks`);
    expect(listed.isError, textOf(listed)).toBeFalsy();
    // The token is the upstream's own (an OAuth grant of the upstream Worker's authorization server), never the user's API token.
    const tokens = await storedTokens(owner.id, source.id);
    expect(tokens?.access_token).toBeDefined();
    expect(tokens?.access_token).not.toBe(owner.token);
    expect(tokens?.refresh_token).toBeDefined();
  });

  it("returns to the console when started from it", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const link = await connectLink(owner, source.id, { return_to: "console" });
    const run = await followInBrowser(new Browser(), link, owner);
    expect(run.final.status).toBe(303);
    expect(run.final.headers.get("location")).toBe("/#sources");
    expect((await authorizationOf(owner, source.id)).status).toBe("connected");
  });

  it("asks a signed-out browser to sign in to mcp-edge first, and a browser signed in as someone else is refused", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const link = await connectLink(owner, source.id);
    const signedOut = await new Browser().get(link);
    expect(signedOut.status).toBe(200);
    expect(await signedOut.text()).toContain('value="sign_in"');

    const run = await followInBrowser(new Browser(), link, intruder);
    expect(run.final.status).toBe(404);
    expect(run.finalHtml).toContain("belongs to another account");
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
  });

  it("the admin tools connect and disconnect from any MCP client", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const gateway = await connectGateway(owner);
    const started = await gateway.callTool({ name: "gateway_connect_source", arguments: { source_id: source.id } });
    expect(started.isError, textOf(started)).toBeFalsy();
    const link = (started.structuredContent as { authorization_url: string }).authorization_url;
    expect(link).toMatch(/^http:\/\/localhost\/oauth\/upstream\/start\?flow=/);
    expect(textOf(started)).toContain(link);
    const run = await followInBrowser(new Browser(), link, owner);
    expect(run.finalHtml).toContain("is connected to your account");

    const ended = await gateway.callTool({ name: "gateway_disconnect_source", arguments: { source_id: source.id } });
    expect(ended.structuredContent).toEqual({ disconnected: true, revoked: true });
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
    await gateway.close();
  });

  it("a denied consent connects nothing", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const link = await connectLink(owner, source.id);
    const run = await followInBrowser(new Browser(), link, owner, { decision: "deny" });
    expect(run.final.status).toBe(400);
    expect(run.finalHtml).toContain("You did not allow the connection");
    expect((await authorizationOf(owner, source.id)).status).toBe("needs_authorization");
    expect(await storedTokens(owner.id, source.id)).toBeNull();
  });
});
