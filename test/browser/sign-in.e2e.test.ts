/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: they use DOM types.)
/**
 * The sign-in and consent pages and the console's OAuth sign-in, in a real headless Chromium
 * against `wrangler dev` (set-up: helpers/console-browser.ts). Each test starts from a fresh
 * browser profile: the pages from the keyboard alone, at phone width, the one-time link and API
 * token methods, deny, a step-up re-consent, and the console refreshing its access token.
 * Screenshots go to test/artifacts/sign-in/ (gitignored).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlString, wrangler } from "../../bin/lib/wrangler";
import { createLocalLoginCode } from "../../bin/lib/wrangler-dev";
import { generateToken, hashToken } from "../../workers/auth/tokens";
import {
  allowAndReturn,
  type ConsoleBrowser,
  consoleTokens,
  expectNoLabelMissing,
  horizontalOverflow,
  openSignInPage,
  openToolIn,
  signInWithApiToken,
  startConsoleBrowser,
  submitToolIn,
} from "./helpers/console-browser";

const USER = "signin";

let run: ConsoleBrowser | undefined;
/** Set-up failures are thrown by every test, so they count as failures with their message. */
let setupError: unknown;

beforeAll(async () => {
  try {
    run = await startConsoleBrowser("sign-in", USER);
    await createOwnUsers(run.persistTo);
  } catch (error) {
    setupError = error;
  }
});

afterAll(async () => {
  await run?.stop();
});

function test(name: string, body: (run: ConsoleBrowser) => Promise<void>): void {
  it(name, async () => {
    if (setupError) throw setupError;
    await body(run!);
  });
}

/** The element that has focus: its id, or its tag and text. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el) return "";
    return el.id ? `#${el.id}` : `${el.tagName.toLowerCase()}:${(el.getAttribute("value") ?? el.textContent ?? "").trim()}`;
  });
}

/** Presses Tab until `target` has focus (at most `limit` times), as a keyboard user moves through the page. */
async function tabTo(page: Page, target: string, limit = 30): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if ((await focused(page)) === target) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${target}; focus is on ${await focused(page)}`);
}

/** Whether the focused element shows a focus ring (the stylesheet's :focus-visible outline). */
function focusIsVisible(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el !== null && el.matches(":focus-visible") && getComputedStyle(el).outlineStyle !== "none";
  });
}

/**
 * Users of their own for the tests that must see the consent page: the console is one client for
 * every browser (the Worker registers it, decision 0055), so a user's remembered consent would
 * answer for it in the next test's fresh browser too. Made in one `wrangler d1 execute` (each
 * run of wrangler costs seconds); their API tokens by name.
 */
const OWN_USERS = ["signin-step-up", "signin-deny", "signin-phone", "signin-refresh"] as const;
const tokens = new Map<string, string>();

async function createOwnUsers(persistTo: string): Promise<void> {
  const statements: string[] = [];
  for (const name of OWN_USERS) {
    const token = generateToken();
    tokens.set(name, token);
    const hash = sqlString(await hashToken(token));
    statements.push(
      `INSERT INTO users (name) VALUES (${sqlString(name)}) ON CONFLICT(name) DO NOTHING;`,
      `INSERT INTO api_tokens (user_id, token_hash, label) SELECT id, ${hash}, 'test' FROM users WHERE name = ${sqlString(name)};`,
    );
  }
  wrangler(["d1", "execute", "DB", "--local", "--persist-to", persistTo, "--command", statements.join("\n")], { quiet: true });
}

function tokenOf(name: (typeof OWN_USERS)[number]): string {
  return tokens.get(name)!;
}

async function expectFits(page: Page): Promise<void> {
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
}

describe("signing in to the console through the Worker's OAuth pages", () => {
  test("the sign-in and consent pages work from the keyboard alone, and the user can leave a permission out", async (run) => {
    const { page, context } = await run.newPage();
    await page.goto(`${run.base}/`);
    // The console focuses its Sign in button; Enter follows it to the Worker's sign-in page.
    expect(await focused(page)).toBe("#sign-in");
    await page.keyboard.press("Enter");
    await page.locator("h2", { hasText: "Sign in to authorize an app" }).waitFor();
    await expectNoLabelMissing(page);
    await run.shot(page, "01-sign-in-page");

    await tabTo(page, "#token");
    expect(await focusIsVisible(page)).toBe(true);
    await page.keyboard.type(run.worker.token);
    await page.keyboard.press("Enter");
    await page.locator("h2", { hasText: "Allow mcp-edge console to use your account?" }).waitFor();
    const consent = await page.locator("main").textContent();
    expect(consent).toContain(`Signed in as ${USER}`);
    // The Worker registered the console itself (decision 0055): named as this server's own app, not unverified.
    expect(consent).toContain("This is this server's own app, registered by mcp-edge itself");
    expect(consent).not.toContain("registered itself: its name is not verified");
    await expectNoLabelMissing(page);
    await run.shot(page, "02-consent-page");

    // gateway:admin starts unticked (given only on purpose); untick tasks:write from the keyboard.
    expect(await page.isChecked("#scope-gateway\\:admin")).toBe(false);
    await tabTo(page, "#scope-tasks:write");
    await page.keyboard.press("Space");
    expect(await page.isChecked("#scope-tasks\\:write")).toBe(false);
    await tabTo(page, "button:approve");
    expect(await focusIsVisible(page)).toBe(true);
    await page.keyboard.press("Enter");
    await page.locator("[role=tablist]").waitFor();
    const tokens = await consoleTokens(page);
    expect(tokens?.scope.split(" ")).not.toContain("tasks:write");
    expect(tokens?.scope.split(" ")).toContain("tasks:read");
    expect(await page.locator("#granted").textContent()).toBe("Signed in · 6 permissions");
    await context.close();
  });

  test("a call that needs a permission left out offers a step-up; after re-consent it succeeds", async (run) => {
    const token = tokenOf("signin-step-up");
    const { page, context } = await run.newPage();
    await openSignInPage(page, run.base);
    await signInWithApiToken(page, token);
    await page.uncheck("#scope-tasks\\:write");
    await allowAndReturn(page, run.base);

    await openToolIn(page, "tasks", "add_task");
    await page.fill('input[name="title"]', "Needs tasks:write");
    const refused = await submitToolIn(page);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("does not grant tasks:write");
    const offer = page.locator(".result-area button.step-up");
    expect(await offer.textContent()).toBe("Allow tasks:write");
    await run.shot(page, "03-step-up-offer");

    await offer.click();
    // The consent page again (the remembered consent does not cover tasks:write), now offering it.
    await page.locator("h2", { hasText: "Allow mcp-edge console to use your account?" }).waitFor();
    expect(await page.isChecked("#scope-tasks\\:write")).toBe(true);
    await run.shot(page, "04-step-up-consent");
    await allowAndReturn(page, run.base);
    expect((await consoleTokens(page))?.scope.split(" ")).toContain("tasks:write");

    await openToolIn(page, "tasks", "add_task");
    await page.fill('input[name="title"]', "Needs tasks:write");
    const added = await submitToolIn(page);
    expect(added.isError).toBe(false);
    expect((added.structured as { task: { title: string } }).task.title).toBe("Needs tasks:write");
    await context.close();
  });

  test("signs in with a one-time link opened in the same browser", async (run) => {
    const { page, context } = await run.newPage();
    await openSignInPage(page, run.base);
    // What `npm run token -- login-link --user signin-link` prints, opened in the browser that started signing in.
    const user = "signin-link";
    const code = await createLocalLoginCode(user, { persistTo: run.persistTo });
    await page.goto(`${run.base}/authorize/link?code=${encodeURIComponent(code)}`);
    await page.locator("h2", { hasText: "Sign in with this link?" }).waitFor();
    await run.shot(page, "05-link-confirmation");
    await page.locator("button", { hasText: `Sign in as ${user}` }).click();
    // Back to the authorization in progress: the console's consent page.
    await page.locator("h2", { hasText: "Allow mcp-edge console to use your account?" }).waitFor();
    await allowAndReturn(page, run.base);
    expect((await consoleTokens(page))?.access_token).toBeTruthy();

    // The link works once.
    await page.goto(`${run.base}/authorize/link?code=${encodeURIComponent(code)}`);
    expect(await page.locator("p.error").textContent()).toContain("already used");
    await context.close();
  });

  test("deny on the consent page leaves the console signed out, with the reason", async (run) => {
    const token = tokenOf("signin-deny");
    const { page, context } = await run.newPage();
    await openSignInPage(page, run.base);
    await signInWithApiToken(page, token);
    await page.locator("button[name=decision][value=deny]").click();
    await page.waitForURL((url) => url.origin === run.base && url.pathname === "/");
    const notice = page.locator(".signin-status [role=alert]");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("You did not allow the console to use your account");
    expect(await consoleTokens(page)).toBeNull();
    // The code and error left the address bar.
    expect(new URL(page.url()).search).toBe("");
    await run.shot(page, "06-denied");
    await context.close();
  });

  test("the sign-in and consent pages fit a phone screen", async (run) => {
    const token = tokenOf("signin-phone");
    const { page, context } = await run.newPage({ viewport: { width: 390, height: 844 } });
    await openSignInPage(page, run.base);
    await expectFits(page);
    await run.shot(page, "07-phone-sign-in");
    await signInWithApiToken(page, token);
    await expectFits(page);
    await run.shot(page, "08-phone-consent");
    await allowAndReturn(page, run.base);
    await expectFits(page);
    await context.close();
  });

  test("refreshes the access token before it expires, and once more when the Worker answers 401", async (run) => {
    const token = tokenOf("signin-refresh");
    const { page, context } = await run.newPage();
    await openSignInPage(page, run.base);
    await signInWithApiToken(page, token);
    await allowAndReturn(page, run.base);
    const first = (await consoleTokens(page))!;

    // About to expire: the next call refreshes first (the refresh token rotates).
    await page.evaluate(() => {
      const tokens = JSON.parse(sessionStorage.getItem("mcp-edge.oauth-tokens")!);
      sessionStorage.setItem("mcp-edge.oauth-tokens", JSON.stringify({ ...tokens, expires_at: Date.now() }));
    });
    await openToolIn(page, "tasks", "list_tasks");
    expect((await submitToolIn(page)).isError).toBe(false);
    const second = (await consoleTokens(page))!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);

    // Refused although not expired (here: a token the Worker never issued): refresh, then the call again.
    await page.evaluate(() => {
      const tokens = JSON.parse(sessionStorage.getItem("mcp-edge.oauth-tokens")!);
      sessionStorage.setItem(
        "mcp-edge.oauth-tokens",
        JSON.stringify({ ...tokens, access_token: `${tokens.access_token.split(":").slice(0, 2).join(":")}:not-the-secret` }),
      );
    });
    expect((await submitToolIn(page)).isError).toBe(false);
    const third = (await consoleTokens(page))!;
    expect(third.refresh_token).not.toBe(second.refresh_token);
    expect(run.pageErrors).toEqual([]);
    await context.close();
  });
});
