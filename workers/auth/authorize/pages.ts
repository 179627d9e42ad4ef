/** The pages of /authorize: sign in, consent, a sign-in link's confirmation, and errors shown here. */
import { cleanClientName } from "../client-names";
import { CONSOLE_CLIENT_NAME } from "../console-client";
import { SCOPE_DESCRIPTIONS, type Scope, tickedByDefault } from "../scopes";
import { errorBox, escapeHtml, hidden, page } from "./html";
import type { SignInMethod } from "./sign-in-methods";

export function signInPage(options: {
  methods: readonly SignInMethod[];
  csrf: string;
  returnTo: string;
  /** What signing in is for: the page's title, and a line above the methods. */
  purpose: { title: string; intro: string };
  error?: string | undefined;
  status?: number;
  headers?: Headers;
}): Response {
  const forms = options.methods
    .map(
      (method) => `<form method="post" action="/authorize" aria-labelledby="method-${escapeHtml(method.id)}">
<h3 id="method-${escapeHtml(method.id)}">${escapeHtml(method.title)}</h3>
${hidden("form", "sign_in")}${hidden("method", method.id)}${hidden("csrf", options.csrf)}${hidden("return_to", options.returnTo)}
${method.fields()}
<div class="actions"><button class="primary" type="submit">${escapeHtml(method.button ?? "Continue")}</button></div>
</form>`,
    )
    .join("\n<hr>\n");
  return page({
    title: options.purpose.title,
    status: options.status ?? 200,
    ...(options.headers ? { headers: options.headers } : {}),
    body: `${options.error ? errorBox(options.error) : ""}<p>${escapeHtml(options.purpose.intro)}</p>
${forms}`,
  });
}

export interface ConsentFacts {
  /** As the registration or document gave it: cleaned here (client-names.ts), the client id when nothing visible is left. */
  clientName: string;
  clientId: string;
  /** A metadata-document client's domain (verified: its client_id is a URL there). */
  clientDomain?: string | undefined;
  /** This server's own console (console-client.ts): named as such, its registration the server's own. */
  firstParty: boolean;
  redirectUri: string;
  redirectHost: string;
  redirectIsLoopback: boolean;
  resource: string;
  resourceName: string;
  /** The signed-in user; undefined when the user signs in after approving (an OpenID provider). */
  userName: string | undefined;
  scopes: readonly Scope[];
  handle: string;
  /**
   * Consent before signing in elsewhere: the method that takes over on Allow (posted as `then`),
   * the provider's name, and its origin (the form's answer redirects there).
   */
  signInWith?: { method: string; name: string; origin: string } | undefined;
}

/** Who the client is, as far as this server knows: its own console, a domain's published document, or a name it gave itself. */
function clientIdentity(facts: ConsentFacts): string {
  if (facts.firstParty) {
    return `<p>This is this server's own app, registered by mcp-edge itself; what you allow goes to its console page here.</p>`;
  }
  if (facts.clientDomain) {
    return `<p>Published by <strong>${escapeHtml(facts.clientDomain)}</strong> (its identity is a document on that domain).</p>`;
  }
  return `<p class="warning">This app registered itself: its name is not verified.</p>`;
}

export function consentPage(facts: ConsentFacts, headers: Headers): Response {
  const clientName = facts.firstParty ? CONSOLE_CLIENT_NAME : cleanClientName(facts.clientName, facts.clientId);
  const name = escapeHtml(clientName);
  const origin = clientIdentity(facts);
  // A loopback address or a private-use scheme (cursor://…): the access goes to whatever program
  // on this computer listens there or claims the scheme, whatever name the client gave itself.
  // Not for the console: its redirect is this server's own page, wherever the server runs.
  const privateUse = !/^https?:/i.test(facts.redirectUri);
  const loopback =
    !facts.firstParty && (facts.redirectIsLoopback || privateUse)
      ? `<p class="warning" role="note"><strong>Access will be sent to an app on this computer (${escapeHtml(facts.redirectHost)}).</strong> Any program on this computer can ${privateUse ? "claim that address" : "listen there"}: continue only if you just started signing in from the app.</p>`
      : "";
  // What stays ticked is what is granted; a scope given only on purpose (gateway:admin) starts unticked.
  const scopes = facts.scopes
    .map((scope) => {
      const id = `scope-${escapeHtml(scope)}`;
      const checked = tickedByDefault(scope) ? " checked" : "";
      return (
        `<div class="inline"><input type="checkbox" id="${id}" name="scope" value="${escapeHtml(scope)}"${checked}>` +
        `<label for="${id}"><code>${escapeHtml(scope)}</code> — ${escapeHtml(SCOPE_DESCRIPTIONS[scope])}</label></div>`
      );
    })
    .join("\n");
  const unticked = facts.scopes.filter((scope) => !tickedByDefault(scope)).map((scope) => `<code>${escapeHtml(scope)}</code>`);
  const untickedHelp = unticked.length > 0 ? ` ${unticked.join(", ")} is not ticked: tick it only if you want this app to have it.` : "";
  // The form's answer redirects to the client's callback, and browsers hold that redirect to
  // form-action too: allow its origin — or, for a native app's private-use scheme
  // (cursor://anysphere.cursor-mcp/oauth/callback), that scheme alone (decision 0032).
  const formAction: string[] = [];
  try {
    const url = new URL(facts.redirectUri);
    if (url.protocol === "https:" || url.protocol === "http:") formAction.push(url.origin);
    else if (/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) formAction.push(url.protocol);
  } catch {
    // a redirect URI the library accepted always parses; nothing to add otherwise
  }
  const next = facts.signInWith;
  if (next) formAction.push(next.origin);
  const who =
    facts.userName !== undefined
      ? `<p>Signed in as <strong>${escapeHtml(facts.userName)}</strong>.</p>`
      : `<p>When you allow it, you sign in with <strong>${escapeHtml(next?.name ?? "your provider")}</strong> next; the app gets access to the account you sign in as.</p>`;
  const allow = next ? `Allow and sign in with ${escapeHtml(next.name)}` : "Allow";
  return page({
    title: `Allow ${clientName} to use your account?`,
    headers,
    formAction,
    body: `${who}
<p><strong>${name}</strong> asks to use <strong>${escapeHtml(facts.resourceName)}</strong> (<code>${escapeHtml(facts.resource)}</code>) as you.</p>
${origin}
<p>Access will be sent to <strong>${escapeHtml(facts.redirectHost)}</strong>.</p>
${loopback}
<form method="post" action="/authorize">
${hidden("form", "consent")}${hidden("handle", facts.handle)}${next ? hidden("then", next.method) : ""}
<fieldset class="checks" aria-describedby="scopes-help"><legend class="field-label">It will be able to:</legend>
${scopes}
</fieldset>
<p class="help" id="scopes-help">Untick what you do not want to allow.${untickedHelp}
You can revoke access by signing in again with fewer permissions.</p>
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">${allow}</button> <button type="submit" name="decision" value="deny">Deny</button></div>
</form>`,
  });
}

export function linkConfirmPage(userName: string, code: string, csrf: string, headers: Headers): Response {
  return page({
    title: "Sign in with this link?",
    headers,
    body: `<p>This one-time link signs this browser in as <strong>${escapeHtml(userName)}</strong>. If that is not you, close this page.</p>
<form method="post" action="/authorize/link">
${hidden("code", code)}${hidden("csrf", csrf)}
<div class="actions"><button class="primary" type="submit">Sign in as ${escapeHtml(userName)}</button></div>
</form>`,
  });
}

export function signedInPage(userName: string, headers: Headers): Response {
  return page({
    title: "You are signed in",
    headers,
    body: `<p>This browser is signed in as <strong>${escapeHtml(userName)}</strong>. Go back to the app and connect again: you will be asked to allow it.</p>`,
  });
}

/**
 * An error shown on this page. `backToApp` (the client's validated redirect URI carrying the OAuth
 * error) is offered as a link once the client is known; never before its redirect URI is validated.
 */
export function errorPage(message: string, status = 400, backToApp?: string): Response {
  const next = backToApp
    ? `<p><a class="button" href="${escapeHtml(backToApp)}">Return to the app</a> — it will be told the sign-in did not succeed.</p>`
    : `<p>Go back to the app and start connecting again.</p>`;
  return page({ title: "This sign-in cannot continue", status, body: `${errorBox(message)}${next}` });
}
