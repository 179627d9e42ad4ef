/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: they use DOM types.)
/**
 * Connecting an OAuth-protected source from the console, in a real headless Chromium against
 * `wrangler dev`: the source is /mcp/tasks of a second deployment of the Worker (another `wrangler
 * dev`, its own state and user) registered with no credentials, so it shows needs_authorization;
 * Connect asks for the link, the browser goes to the upstream's sign-in and consent pages (that
 * deployment's authorization server; the gateway registers there by DCR, since a http://localhost
 * metadata document could not be fetched), the person signs in with their account there, Allow,
 * and the console comes back on its sources panel with the source healthy. Screenshots in
 * test/artifacts/upstream-connect/.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  allowAndReturn,
  type ConsoleBrowser,
  openSignInPage,
  openTabIn,
  signInWithApiToken,
  startConsoleBrowser,
  startUpstreamDeployment,
  type UpstreamDeployment,
} from "./helpers/console-browser";

let run: ConsoleBrowser | undefined;
let upstream: UpstreamDeployment | undefined;
let page: Page;
let setupError: unknown;

/** Two `wrangler dev` start one after the other (the gateway's and its upstream's): twice the hook's bound. */
const TWO_WORKERS_START_MS = 360_000;

beforeAll(async () => {
  try {
    upstream = await startUpstreamDeployment("upstream-connect", "connector-upstream");
    run = await startConsoleBrowser("upstream-connect", "connector", [upstream.base]);
    ({ page } = await run.newPage());
  } catch (error) {
    setupError = error;
  }
}, TWO_WORKERS_START_MS);

afterAll(async () => {
  await run?.stop();
  await upstream?.worker.stop();
});

function step(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    if (setupError) throw setupError;
    await body();
  });
}

async function registerSource(): Promise<{ id: number; slug: string }> {
  const res = await fetch(`${run!.base}/api/sources`, {
    method: "POST",
    headers: { authorization: `Bearer ${run!.worker.token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "My Tasks Upstream", url: `${upstream!.base}/mcp/tasks` }),
  });
  expect(res.status).toBe(201);
  const { source } = (await res.json()) as { source: { id: number; slug: string } };
  return source;
}

describe("connecting an OAuth-protected source from the console", () => {
  step("Connect, consent at the upstream, back to the console with the source healthy", async () => {
    await openSignInPage(page, run!.base);
    await signInWithApiToken(page, run!.worker.token);
    // Connecting a source is gateway:admin, which the consent page never ticks in advance.
    await page.check("#scope-gateway\\:admin");
    await allowAndReturn(page, run!.base);
    const source = await registerSource();

    await openTabIn(page, "sources");
    const row = page.locator(`tr[data-source="${source.slug}"]`);
    await row.locator(".state", { hasText: "needs authorization" }).waitFor();
    await run!.shot(page, "01-needs-authorization");

    await row.locator(`button[data-connect="${source.slug}"]`).click();
    // The upstream deployment's sign-in: the person's account there, then its consent page.
    await page.waitForURL((url) => url.origin === upstream!.base && url.pathname === "/authorize");
    await page.locator("h2", { hasText: "Sign in to authorize an app" }).waitFor();
    await signInWithApiToken(page, upstream!.worker.token);
    await page.locator("h2", { hasText: /^Allow mcp-edge gateway to use your account\?$/ }).waitFor();
    await run!.shot(page, "02-upstream-consent");
    await page.locator("button[name=decision][value=approve]").click();

    await page.waitForURL((url) => url.origin === run!.base && url.pathname === "/" && url.hash === "#sources");
    const back = page.locator(`tr[data-source="${source.slug}"]`);
    await back.locator(".state", { hasText: "healthy" }).waitFor();
    expect(await back.locator(`button[data-disconnect="${source.slug}"]`).count()).toBe(1);
    await run!.shot(page, "03-connected-healthy");
    expect(run!.pageErrors).toEqual([]);
  });
});
