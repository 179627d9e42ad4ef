/**
 * The page the connect link opens: what will be connected — the source, its authorization server,
 * the scopes asked for (the ones its upstream named, never the link's) and any warning — and a
 * form whose POST (CSRF-protected, same origin) starts the flow. Opening the link changes nothing:
 * a site that makes the browser open it registers no client upstream and uses up no connect.
 */
import { errorBox, escapeHtml, hidden, page } from "../auth/authorize/html";
import type { ConnectConfirmation } from "./connect-link.service";
import { UPSTREAM_CONNECT_PATH } from "./paths";

/** The hidden `form` value that marks this page's form. */
export const CONNECT_FORM = "connect_upstream";

export interface ConnectPageOptions {
  source: { id: number; name: string; url: string };
  confirmation: ConnectConfirmation;
  csrf: string;
  returnTo: "console" | "page";
  headers: Headers;
}

function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

export function connectPage({ source, confirmation, csrf, returnTo, headers }: ConnectPageOptions): Response {
  const server = confirmation.authorizationServer;
  const scopes = confirmation.scope
    ?.split(" ")
    .map((scope) => `<code>${escapeHtml(scope)}</code>`)
    .join(" ");
  const destination = hostOf(confirmation.authorizationOrigin) ?? hostOf(server ?? undefined);
  const body = `<p>Source <strong>${escapeHtml(source.name)}</strong> (<code>${escapeHtml(source.url)}</code>) needs you to
connect your own account at its authorization server${server ? ` <strong>${escapeHtml(server)}</strong>` : ""}.</p>
<p>mcp-edge will ask it for: ${scopes ?? "the permissions it suggests"}.</p>
${confirmation.warnings.map(errorBox).join("\n")}
<p>Continuing sends you to ${destination ? `<strong>${escapeHtml(destination)}</strong>` : "that server"} to sign in and allow
access; you come back here afterwards. If you did not mean to connect this source, close this page: nothing has been connected.</p>
<form method="post" action="${UPSTREAM_CONNECT_PATH}">
${hidden("form", CONNECT_FORM)}${hidden("csrf", csrf)}${hidden("source_id", String(source.id))}${hidden("return_to", returnTo)}
<button class="primary" type="submit">Continue${destination ? ` to ${escapeHtml(destination)}` : ""}</button>
</form>`;
  // The form's answer redirects to the authorization server: form-action must allow it.
  const formAction = confirmation.authorizationOrigin ? [confirmation.authorizationOrigin] : [];
  return page({ title: "Connect your account", body, headers, formAction });
}
