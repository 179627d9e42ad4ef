/**
 * Client names on the consent page (issue 21, finding 7): a registration's or a metadata document's
 * `client_name` loses its control and format characters — a newline that would fake a "Published by"
 * line, bidi controls, zero-width characters — and is cut to 100 characters, in the page, its title
 * and the registration itself.
 */
import { describe, expect, it } from "vitest";
import { MAX_CLIENT_NAME_CHARS } from "../../workers/auth/client-names";
import { workerFetch } from "../helpers/mcp";
import { authorizeUrl, Browser, formFields, LOOPBACK_REDIRECT, ORIGIN, pkce, publishClientMetadata } from "../helpers/oauth";
import { createUser } from "../helpers/users";

const SPOOF = "Trusted app\n\nPublished by google.com\u2028(verified)";
const BIDI = "Evil\u202Emoc.elgoog\u202C App\u200B\u2066x\u2069\u00AD";

async function register(name: string): Promise<{ clientId: string; registeredName: unknown }> {
  const res = await workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "cf-connecting-ip": `192.0.2.${crypto.randomUUID()}` },
    body: JSON.stringify({ client_name: name, redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: "none" }),
  });
  expect(res.status).toBe(201);
  const body = await res.json<{ client_id: string; client_name?: unknown }>();
  return { clientId: body.client_id, registeredName: body.client_name };
}

/** The consent page of `clientId` for a newly signed-in user. */
async function consentHtml(clientId: string): Promise<string> {
  const user = await createUser();
  const browser = new Browser();
  const { challenge } = await pkce();
  const page = await browser.get(authorizeUrl({ clientId, challenge, scope: "tasks:read" }));
  const signIn = await browser.post("/authorize", [...Object.entries(formFields(await page.text(), "api_token")), ["token", user.token]]);
  const consent = await browser.get(signIn.headers.get("location")!);
  expect(consent.status).toBe(200);
  return consent.text();
}

/** What the page shows as the client's name: the first `<strong>` of "… asks to use …". */
function shownName(html: string): string {
  const match = /<p><strong>([^<]*)<\/strong> asks to use/.exec(html);
  expect(match, "the consent page names the client").not.toBeNull();
  return match![1]!;
}

function pageTitle(html: string): string {
  return /<title>([^<]*)<\/title>/.exec(html)![1]!;
}

describe("a dynamically registered client's name", () => {
  it("a newline or line separator cannot make a line of its own", async () => {
    const { clientId, registeredName } = await register(SPOOF);
    expect(registeredName).toBe("Trusted app Published by google.com (verified)");
    const html = await consentHtml(clientId);
    expect(shownName(html)).toBe("Trusted app Published by google.com (verified)");
    expect(html).not.toMatch(/Trusted app\s*\n/);
    expect(html).not.toContain("\u2028");
    expect(pageTitle(html)).toBe("Allow Trusted app Published by google.com (verified) to use your account? · mcp-edge");
  });

  it("bidi controls, zero-width and soft-hyphen characters are removed", async () => {
    const { clientId, registeredName } = await register(BIDI);
    expect(registeredName).toBe("Evilmoc.elgoog Appx");
    const html = await consentHtml(clientId);
    expect(shownName(html)).toBe("Evilmoc.elgoog Appx");
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B\u00AD]/);
  });

  it(`is cut to ${MAX_CLIENT_NAME_CHARS} characters`, async () => {
    const { clientId, registeredName } = await register(`${"Long name ".repeat(40)}end`);
    expect(Array.from(String(registeredName))).toHaveLength(MAX_CLIENT_NAME_CHARS);
    const shown = shownName(await consentHtml(clientId));
    expect(Array.from(shown)).toHaveLength(MAX_CLIENT_NAME_CHARS);
    expect(shown.endsWith("…")).toBe(true);
  });

  it("a name of nothing visible shows the client id instead", async () => {
    const { clientId } = await register("\u202E\u200B\n");
    expect(shownName(await consentHtml(clientId))).toBe(clientId);
  });
});

describe("a metadata document's client_name", () => {
  it("is shown cleaned and cut the same way (the document itself is not ours to change)", async () => {
    const clientId = await publishClientMetadata(`names/${crypto.randomUUID()}.json`, {
      client_name: `${SPOOF} ${BIDI} ${"x".repeat(200)}`,
      redirect_uris: [LOOPBACK_REDIRECT],
      token_endpoint_auth_method: "none",
    });
    const html = await consentHtml(clientId);
    const shown = shownName(html);
    expect(shown.startsWith("Trusted app Published by google.com (verified) Evilmoc.elgoog Appx xxx")).toBe(true);
    expect(Array.from(shown)).toHaveLength(MAX_CLIENT_NAME_CHARS);
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B\u00AD\u2028]/);
    // The one "Published by" line is the verified domain's.
    expect(html.match(/<p>Published by/g)).toHaveLength(1);
    expect(html).toContain("<p>Published by <strong>client-metadata.test</strong>");
  });
});
