/**
 * The sign-in and consent pages' HTML: server-rendered, no script, the console's stylesheet.
 * Every string that did not come from this file is escaped — client names, URIs and scopes come
 * from a registration or a metadata document an attacker may have written.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface PageOptions {
  title: string;
  /** Trusted HTML (built with escapeHtml). */
  body: string;
  status?: number;
  /** Extra `form-action` sources: a consent form's answer redirects to the client's callback. */
  formAction?: readonly string[];
  headers?: Headers;
}

export function page({ title, body, status = 200, formAction = [], headers = new Headers() }: PageOptions): Response {
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'${formAction.map((source) => ` ${source}`).join("")}; frame-ancestors 'none'; base-uri 'none'`,
  );
  headers.set("X-Frame-Options", "DENY");
  headers.set("Cache-Control", "no-store");
  // Not no-referrer: with it a browser posts our own forms with `Origin: null`, which the CSRF
  // check must refuse. same-origin still sends nothing to the app or provider a page leads to.
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Content-Type-Options", "nosniff");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)} · mcp-edge</title>
<link rel="stylesheet" href="/console.css">
<link rel="icon" href="data:,">
</head>
<body>
<header class="top"><h1><span class="logo" aria-hidden="true">◆</span> mcp-edge</h1></header>
<main id="main"><section class="signin" aria-labelledby="page-title">
<h2 id="page-title">${escapeHtml(title)}</h2>
${body}
</section></main>
</body>
</html>`;
  return new Response(html, { status, headers });
}

export function errorBox(message: string): string {
  return `<p class="error" role="alert">${escapeHtml(message)}</p>`;
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}
