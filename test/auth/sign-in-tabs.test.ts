/**
 * Several sign-in tabs of one browser each complete (issue 22): an app that opens two sign-in pages
 * at once in a fresh browser (Mastra's documented flow does) gets two pages whose requests carried
 * no cookie, each with its own CSRF token. Each form stays valid — one shared CSRF cookie was
 * overwritten by the second page, and the first form was refused "This form has expired". Another
 * site still cannot post a form: it has neither cookie.
 */
import { describe, expect, it } from "vitest";
import { workerFetch } from "../helpers/mcp";
import { authorizeInBrowser, authorizeUrl, Browser, formFields, ORIGIN, pkce, registerClient } from "../helpers/oauth";
import { createUser, type TestUser } from "../helpers/users";

async function authorization(clientId: string, state: string): Promise<string> {
  const { challenge } = await pkce();
  return authorizeUrl({ clientId, challenge, scope: "tasks:read", state });
}

/** Both pages requested before either answer's cookies reached the browser, as two tabs opened together are. */
async function openTogether(browser: Browser, urls: string[]): Promise<{ html: string; response: Response }[]> {
  const cookie = browser.jar.header();
  const responses = await Promise.all(urls.map((url) => workerFetch(url, { headers: { cookie }, redirect: "manual" })));
  return Promise.all(
    responses.map(async (response) => {
      expect(response.status).toBe(200);
      return { html: await response.text(), response };
    }),
  );
}

/** Submits a tab's sign-in form with the API token and follows it to the app's callback. */
async function finishTab(browser: Browser, html: string, user: TestUser): Promise<URL> {
  const signIn = await browser.post("/authorize", [...Object.entries(formFields(html, "api_token")), ["token", user.token]]);
  expect(signIn.status, `the tab's sign-in is accepted (got ${signIn.status}: ${(await signIn.clone().text()).slice(0, 200)})`).toBe(303);
  const { callback } = await authorizeInBrowser(browser, new URL(signIn.headers.get("location")!, ORIGIN).href, user);
  return callback;
}

function csrfCookies(browser: Browser): string[] {
  return [...browser.jar.cookies.keys()].filter((name) => name.startsWith("__Host-mcpe-csrf"));
}

describe("two sign-in tabs opened at once in a fresh browser", () => {
  it.each([
    ["the first tab's answer arrives first", [0, 1]],
    ["the second tab's answer arrives first", [1, 0]],
  ])("each completes with a code of its own (%s)", async (_case, arrival) => {
    const user = await createUser();
    const clientId = await registerClient();
    const urls = [await authorization(clientId, "tab-one"), await authorization(clientId, "tab-two")];
    const browser = new Browser();
    const pages = await openTogether(browser, urls);
    for (const index of arrival) browser.jar.store(pages[index]!.response);
    const [one, two] = [formFields(pages[0]!.html, "api_token")["csrf"], formFields(pages[1]!.html, "api_token")["csrf"]];
    expect(one).not.toBe(two);

    const first = await finishTab(browser, pages[0]!.html, user);
    const second = await finishTab(browser, pages[1]!.html, user);
    expect(first.searchParams.get("state")).toBe("tab-one");
    expect(second.searchParams.get("state")).toBe("tab-two");
    expect(first.searchParams.get("code")).toBeTruthy();
    expect(second.searchParams.get("code")).toBeTruthy();
  });

  it("a later page of the same browser reuses a token it holds: no cookie piles up", async () => {
    const clientId = await registerClient();
    const browser = new Browser();
    const first = await browser.get(await authorization(clientId, "one"));
    const token = formFields(await first.text(), "api_token")["csrf"];
    const second = await browser.get(await authorization(clientId, "two"));
    expect(formFields(await second.text(), "api_token")["csrf"]).toBe(token);
    expect(csrfCookies(browser)).toHaveLength(1);
  });
});

describe("a form another browser posts", () => {
  it("is refused, even when that browser holds a CSRF cookie of its own", async () => {
    const user = await createUser();
    const clientId = await registerClient();
    const url = await authorization(clientId, "victim");
    const victim = new Browser();
    const victimFields = formFields(await (await victim.get(url)).text(), "api_token");
    const attacker = new Browser();
    await attacker.get(await authorization(clientId, "attacker"));
    expect(csrfCookies(attacker)).toHaveLength(1);

    const res = await attacker.post("/authorize", [...Object.entries(victimFields), ["token", user.token]]);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("This form has expired or was not opened in this browser");
    expect(res.headers.getSetCookie().some((line) => line.startsWith("__Host-mcpe-session="))).toBe(false);
  });

  it("is refused when its token names a cookie of the right shape with another value", async () => {
    const clientId = await registerClient();
    const browser = new Browser();
    const fields = formFields(await (await browser.get(await authorization(clientId, "s"))).text(), "api_token");
    const [name] = csrfCookies(browser);
    browser.jar.cookies.set(name!, "A".repeat(43));
    const res = await browser.post("/authorize", [...Object.entries(fields), ["token", "mcpe_x"]]);
    expect(res.status).toBe(403);
  });
});
