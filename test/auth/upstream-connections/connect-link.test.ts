/**
 * The connect link an `authorization_required` call carries is a GET anyone can make a browser
 * open. Opening it shows what would be connected — the source, its authorization server, the
 * scopes its upstream named (never the link's) — and changes nothing; only the page's own form
 * (this browser's CSRF token, this origin, the signed-in owner) starts a flow. A start reuses the
 * client an unfinished connect of the same source registered at the same server.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { hostileUpstream, receivedAt, registerHostile } from "../../helpers/hostile-oauth";
import { Browser, formFields, ORIGIN } from "../../helpers/oauth";
import {
  connectLink,
  connectSource,
  followInBrowser,
  publishGatewayClientDocument,
  registerOAuthTasksSource,
} from "../../helpers/upstream-oauth";
import { createUser, type TestUser } from "../../helpers/users";
import { UPSTREAM_ORIGIN } from "../../upstreams/upstream-origin";

beforeAll(async () => {
  await publishGatewayClientDocument();
});

async function flowsOf(userId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM upstream_oauth_flows WHERE user_id = ?").bind(userId).first<{ n: number }>();
  return row!.n;
}

/** The connect link's page in `browser` (signing it in as `owner` first when asked). */
async function openLink(browser: Browser, owner: TestUser, link: string): Promise<{ status: number; html: string }> {
  const run = await followInBrowser(browser, link, owner, { stopAtConfirmation: true });
  return { status: run.final.status, html: run.finalHtml };
}

describe("opening the connect link", () => {
  it("starts nothing: a page names the source, its server and the scopes its upstream named, never the link's", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();

    // The upstream (the upstream Worker's /mcp/tasks) names tasks:read and tasks:write (decision 0054); the link asks for others.
    const scope = encodeURIComponent("gateway:admin rag:write");
    const page = await openLink(browser, owner, `/oauth/upstream/connect?source_id=${source.id}&scope=${scope}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(source.name);
    expect(page.html).toContain(`<strong>${UPSTREAM_ORIGIN}</strong>`);
    expect(page.html).toContain("<code>tasks:read</code> <code>tasks:write</code>");
    expect(page.html).not.toContain("gateway:admin");
    expect(page.html).not.toContain("rag:write");
    expect(await flowsOf(owner.id), "no flow until the form is sent").toBe(0);

    const started = await browser.post("/oauth/upstream/connect", Object.entries(formFields(page.html, "connect_upstream")));
    expect(started.status).toBe(303);
    const authorize = new URL(started.headers.get("location")!, ORIGIN);
    expect(authorize.origin).toBe(UPSTREAM_ORIGIN);
    expect(authorize.pathname).toBe("/authorize");
    expect(authorize.searchParams.get("scope")!.split(" ").sort()).toEqual(["tasks:read", "tasks:write"]);
    expect(await flowsOf(owner.id)).toBe(1);
  });

  it("ten times, as another site can make a browser do: no client registered upstream, no connect used up", async () => {
    const owner = await createUser();
    const upstream = await hostileUpstream();
    const sourceId = await registerHostile(owner, upstream);
    const browser = new Browser();
    for (let opened = 0; opened < 10; opened++) {
      expect((await openLink(browser, owner, `/oauth/upstream/connect?source_id=${sourceId}&scope=evil`)).status).toBe(200);
    }
    expect(await receivedAt(upstream, "/register")).toEqual([]);
    expect(await flowsOf(owner.id)).toBe(0);
    // The owner can still connect their sources.
    const { source } = await registerOAuthTasksSource(owner);
    await connectSource(owner, source.id);
  });
});

describe("the page's form", () => {
  it("starts nothing without this browser's CSRF token, from another site, or from a browser signed out", async () => {
    const owner = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const browser = new Browser();
    const fields = formFields((await openLink(browser, owner, `/oauth/upstream/connect?source_id=${source.id}`)).html, "connect_upstream");
    expect(fields["csrf"]).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const wrongToken = await browser.post("/oauth/upstream/connect", Object.entries({ ...fields, csrf: "x".repeat(43) }));
    expect(wrongToken.status).toBe(403);
    const otherSite = await browser.post("/oauth/upstream/connect", Object.entries(fields), "https://attacker.example");
    expect(otherSite.status).toBe(403);
    const signedOut = await new Browser().post("/oauth/upstream/connect", Object.entries(fields));
    expect(signedOut.status).toBe(403);
    expect(await flowsOf(owner.id)).toBe(0);
  });

  it("for another user's source is refused like a source that does not exist", async () => {
    const owner = await createUser();
    const intruder = await createUser();
    const { source } = await registerOAuthTasksSource(owner);
    const { source: own } = await registerOAuthTasksSource(intruder);
    const browser = new Browser();
    const fields = formFields((await openLink(browser, intruder, `/oauth/upstream/connect?source_id=${own.id}`)).html, "connect_upstream");
    const refused = await browser.post("/oauth/upstream/connect", Object.entries({ ...fields, source_id: String(source.id) }));
    expect(refused.status).toBe(404);
    expect(await flowsOf(owner.id)).toBe(0);
    expect(await flowsOf(intruder.id)).toBe(0);
  });
});

describe("starting again before finishing", () => {
  it("reuses the client the unfinished connect registered at the same server", async () => {
    const owner = await createUser();
    const upstream = await hostileUpstream();
    const sourceId = await registerHostile(owner, upstream);

    const clientIds: string[] = [];
    for (let start = 0; start < 3; start++) {
      const run = await followInBrowser(new Browser(), await connectLink(owner, sourceId), owner);
      clientIds.push(new URL(run.visited.at(-1)!).searchParams.get("client_id")!);
    }
    expect(await receivedAt(upstream, "/register"), "one registration for three starts").toHaveLength(1);
    expect(new Set(clientIds).size).toBe(1);
  });
});
