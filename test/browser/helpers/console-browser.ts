/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: they use DOM types.)
/**
 * The browser tests' set-up: `wrangler dev` serving the Worker and the console with its own state,
 * headless Chromium driven by playwright-core (Debian's when installed, else the one inside an npm
 * package: test/browser/helpers/chromium.ts; never a browser download), requests to
 * any other origin failing the page, screenshots in test/artifacts/<name>/ (gitignored); and the
 * console's sign-in through the /authorize pages, as a person does it. A test that needs a gateway
 * source starts a second deployment of the Worker beside it (startUpstreamDeployment): a source is
 * never on the Worker's own origin (decision 0057).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { LOG_DIR, type LocalWorker, startLocalWorker } from "../../../bin/lib/local-worker";
import { ROOT } from "../../../bin/lib/wrangler";

export const UI_TIMEOUT = 30_000;

export interface ConsoleBrowser {
  worker: LocalWorker;
  /** The local state directory of this Worker (its D1, KV, Durable Objects). */
  persistTo: string;
  /** The console's origin as a person opens it: http://localhost:<port> (the Worker's SELF_ORIGIN). */
  base: string;
  browser: Browser;
  /** Every error a page threw and every request to another origin, across all contexts. */
  pageErrors: string[];
  /** A fresh browser profile (its own cookies and storage) with one page. */
  newPage(options?: {
    viewport?: { width: number; height: number };
    timezoneId?: string;
  }): Promise<{ context: BrowserContext; page: Page }>;
  shot(page: Page, name: string): Promise<void>;
  stop(): Promise<void>;
}

/** Another deployment of the Worker, as a gateway source's upstream: its own `wrangler dev`, state, user and token. */
export interface UpstreamDeployment {
  worker: LocalWorker;
  /**
   * Its origin: http://127.0.0.1:<its port>, the issuer of its authorization server (no SELF_ORIGIN:
   * the request's origin). Another host than the console's `localhost`, as another deployment is:
   * browsers keep cookies per host, not per port, and the two Workers' sign-in cookies share names.
   */
  base: string;
}

/** Starts `<name>-upstream`: the Worker again, on a port and host and with local state of its own. */
export async function startUpstreamDeployment(name: string, user: string): Promise<UpstreamDeployment> {
  const label = `${name}-upstream`;
  const persistTo = join(ROOT, ".wrangler", label);
  rmSync(persistTo, { recursive: true, force: true });
  const worker = await startLocalWorker({ user, label, persistTo, logFile: join(LOG_DIR, `${label}.log`) });
  return { worker, base: worker.origin };
}

/** `alsoAllowed`: origins besides the Worker's the pages may reach (an upstream deployment's). */
export async function startConsoleBrowser(name: string, user: string, alsoAllowed: readonly string[] = []): Promise<ConsoleBrowser> {
  // Chosen once by the browser project's global set-up (test/browser/browser-setup.ts).
  const chromiumChoice = inject("chromium");
  const artifacts = join(ROOT, "test", "artifacts", name);
  mkdirSync(artifacts, { recursive: true });
  // Its own state, fresh each run: a new user, no tasks, no sources, no grants.
  const persistTo = join(ROOT, ".wrangler", name);
  rmSync(persistTo, { recursive: true, force: true });
  const worker = await startLocalWorker({ user, label: name, persistTo, logFile: join(LOG_DIR, `${name}.log`), devVars: true });
  // localhost, as a person opens it: the issuer (SELF_ORIGIN) is http://localhost:<port>.
  const base = worker.origin.replace("127.0.0.1", "localhost");
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: chromiumChoice.executablePath,
      env: { ...process.env, ...chromiumChoice.env },
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-extensions",
      ],
    });
  } catch (error) {
    await worker.stop();
    throw error;
  }
  const pageErrors: string[] = [];
  return {
    worker,
    persistTo,
    base,
    browser,
    pageErrors,
    async newPage(options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? { width: 1280, height: 900 },
        timezoneId: options.timezoneId ?? "UTC",
        locale: "en-US",
      });
      // Nothing outside the Worker (and the origins named): any other request fails the page (and the test, via pageErrors).
      await context.route(
        (url) => url.origin !== base && !alsoAllowed.includes(url.origin),
        (route) => {
          pageErrors.push(`external request blocked: ${route.request().url()}`);
          return route.abort();
        },
      );
      const page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      page.on("pageerror", (error) => pageErrors.push(error.message));
      return { context, page };
    },
    async shot(page, shotName) {
      await page.screenshot({ path: join(artifacts, `${shotName}.png`), fullPage: true });
    },
    async stop() {
      await browser.close();
      await worker.stop();
    },
  };
}

/** From the console's sign-in view to the Worker's sign-in page (by clicking "Sign in"). */
export async function openSignInPage(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.locator("#sign-in").click();
  await page.waitForURL(/\/authorize\?/);
  await page.locator("h2", { hasText: "Sign in to authorize an app" }).waitFor();
}

/** On the Worker's sign-in page: the API-token method, up to the consent page. */
export async function signInWithApiToken(page: Page, token: string): Promise<void> {
  await page.fill("#token", token);
  await page
    .locator("form", { has: page.locator("#token") })
    .locator("button[type=submit]")
    .click();
  await page.locator("h2", { hasText: /^Allow .* to use your account\?$/ }).waitFor();
}

/** On the consent page: Allow, then back in the console, signed in. */
export async function allowAndReturn(page: Page, base: string): Promise<void> {
  await page.locator("button[name=decision][value=approve]").click();
  await page.waitForURL((url) => url.origin === base && url.pathname === "/");
  await page.locator("[role=tablist]").waitFor();
}

/** The console's OAuth tokens, as it keeps them in sessionStorage. */
export async function consoleTokens(
  page: Page,
): Promise<{ access_token: string; refresh_token: string; scope: string; expires_at: number } | null> {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem("mcp-edge.oauth-tokens") ?? "null"));
}

/** How far the page is wider than the screen (0 or less: it fits). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

export async function expectNoLabelMissing(page: Page, selector = "form"): Promise<void> {
  const unlabeled = await page
    .locator(selector)
    .evaluateAll((forms) =>
      forms.flatMap((form) =>
        [...form.querySelectorAll("input:not([type=hidden]), select, textarea")]
          .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute("aria-label"))
          .map((el) => el.outerHTML),
      ),
    );
  expect(unlabeled).toEqual([]);
}

export type ConsoleTab = "tools" | "sources" | "rag" | "chat";

export async function openTabIn(page: Page, id: ConsoleTab): Promise<void> {
  await page.click(`#tab-${id}`);
  await page.locator(`#panel-${id}`).waitFor({ state: "visible" });
}

/** Opens a tool of one server in the tools panel (unfolding the server if needed). */
export async function openToolIn(page: Page, server: string, tool: string): Promise<void> {
  await openTabIn(page, "tools");
  const section = page.locator(`details.server[data-server="${server}"]`);
  if (!(await section.evaluate((el) => (el as HTMLDetailsElement).open))) await section.locator("summary").click();
  await section.locator(`.tool-button[data-tool="${tool}"]`).click();
  await page.locator(`article.tool[data-tool="${tool}"]`).waitFor();
}

/** Submits the open tool's form and waits for its outcome (a result or an error box). */
export async function submitToolIn(page: Page): Promise<{ isError: boolean; text: string; structured: unknown }> {
  await page.locator("form.call-form button[type=submit]").click();
  const outcome = page.locator(".result-area > .result, .result-area > .error");
  await outcome.first().waitFor({ timeout: UI_TIMEOUT });
  const structuredBox = page.locator('.result-area pre[aria-label="Structured content"]');
  const structured: unknown = (await structuredBox.count()) > 0 ? JSON.parse((await structuredBox.textContent()) ?? "null") : undefined;
  return {
    isError: (await page.locator(".result-area > .result.is-error, .result-area > .error").count()) > 0,
    text: (await outcome.first().textContent()) ?? "",
    structured,
  };
}
