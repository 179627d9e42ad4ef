/**
 * MCP client libraries nobody here wrote, signing in to the Worker as their users do: the library
 * sends a person to /authorize (its OAuthClientProvider's `redirectToAuthorization`, or the URL a
 * CLI asks the system browser to open), the person signs in with an API token and answers the
 * consent page in headless Chromium, and the browser follows the redirect to the library's callback
 * (a loopback port of the library's own, or one of ours). Nothing but loopback is reached.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { BrowserContext } from "playwright-core";
import { ROOT } from "../../../bin/lib/wrangler";
import { until } from "../../helpers/eventually";
import { type ConsoleBrowser, UI_TIMEOUT } from "./console-browser";

export interface ConsentAnswer {
  /** The `scope` of the authorization URL the library built: what its sign-in asked for. */
  asked: string[];
  /** The scopes the consent page offered, ticked or not, before the person changed anything. */
  offered: { scope: string; ticked: boolean }[];
  /** Where the browser ended: the library's callback with `code`, `state` and `iss`. */
  callback: URL;
}

/**
 * One person's browser profile. Requests may reach the Worker and the callback origin of the
 * authorization URL being followed (the library's loopback port); any other is refused and
 * recorded in `run.pageErrors`.
 */
export class SigningInPerson {
  private context: BrowserContext | undefined;
  private readonly callbackOrigins = new Set<string>();

  constructor(private readonly run: ConsoleBrowser) {}

  /** Follows `url` as the person would: sign in with the API token when asked, untick `untick`, Allow. */
  async authorize(url: URL, untick: readonly string[] = []): Promise<ConsentAnswer> {
    this.callbackOrigins.add(new URL(url.searchParams.get("redirect_uri") ?? this.run.base).origin);
    const context = await this.browserContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    try {
      await page.goto(url.href);
      const signIn = page.locator("#token");
      if (await signIn.isVisible()) {
        await signIn.fill(this.run.worker.token);
        await page.locator("form", { has: signIn }).locator("button[type=submit]").click();
      }
      await page.locator("h2", { hasText: /^Allow .* to use your account\?$/ }).waitFor();
      const offered = await page
        .locator('input[name="scope"]')
        .evaluateAll((boxes) =>
          boxes.map((box) => ({ scope: (box as HTMLInputElement).value, ticked: (box as HTMLInputElement).checked })),
        );
      for (const scope of untick) await page.uncheck(`#scope-${scope.replace(":", "\\:")}`);
      await page.locator("button[name=decision][value=approve]").click();
      await page.waitForURL((next) => next.origin !== this.run.base);
      return { asked: (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean), offered, callback: new URL(page.url()) };
    } finally {
      await page.close();
    }
  }

  async close(): Promise<void> {
    await this.context?.close();
  }

  private async browserContext(): Promise<BrowserContext> {
    if (this.context) return this.context;
    this.context = await this.run.browser.newContext({ locale: "en-US", timezoneId: "UTC" });
    await this.context.route(
      (url) => url.origin !== this.run.base && !this.callbackOrigins.has(url.origin),
      (route) => {
        this.run.pageErrors.push(`external request blocked: ${route.request().url()}`);
        return route.abort();
      },
    );
    return this.context;
  }
}

/** A loopback page for callbacks the test owns (libraries driven in-process): it only says 200. */
export async function callbackPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) =>
    response.writeHead(200, { "content-type": "text/plain" }).end("Signed in; you may close this tab."),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The state an in-process OAuth client keeps (what the SDK 1.x asks an app to persist), in
 * memory, recording each authorization URL the library sends the user to.
 */
export class RecordingOAuthProvider implements OAuthClientProvider {
  readonly authorizationUrls: URL[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";

  constructor(
    readonly redirectUrl: string,
    private readonly name: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /** The latest authorization URL; throws when the library sent the user nowhere. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error(`${this.name} never sent the user to /authorize`);
    return url;
  }
}

/** The code of a callback URL, or an error naming what came back instead (an OAuth error). */
export function codeOf(callback: URL): string {
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`the callback carries no code: ${callback.href}`);
  return code;
}

/** The titles of the user's tasks, over REST with the user's API token: whether a write landed. */
export async function taskTitles(run: ConsoleBrowser): Promise<string[]> {
  const response = await fetch(`${run.base}/api/tasks`, { headers: { authorization: `Bearer ${run.worker.token}` } });
  if (!response.ok) throw new Error(`GET /api/tasks answered ${response.status}`);
  const body = (await response.json()) as { tasks: { title: string }[] };
  return body.tasks.map((task) => task.title);
}

interface RpcAnswer {
  result?: { isError?: boolean; content?: unknown };
  error?: { code: number; message: string };
}

/**
 * mcp-remote, the stdio proxy Claude Desktop and Cursor users run, as such a desktop app runs it:
 * a child process spoken to in JSON-RPC over stdin/stdout. Its browser opener is harmless —
 * `BROWSER` names a script that records the URL — and the test follows the recorded URLs; its
 * tokens live in a temporary MCP_REMOTE_CONFIG_DIR.
 */
export class McpRemote {
  private readonly child: ChildProcess;
  private readonly answers = new Map<number, RpcAnswer>();
  private nextId = 1;
  private stderr = "";

  constructor(
    serverUrl: string,
    private readonly dir = mkdtempSync(join(tmpdir(), "mcp-remote-")),
  ) {
    const opener = join(dir, "record-url.sh");
    writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> "${join(dir, "opened.txt")}"\n`);
    chmodSync(opener, 0o755);
    this.child = spawn(
      process.execPath,
      [join(ROOT, "node_modules", "mcp-remote", "dist", "proxy.js"), serverUrl, "--auth-timeout", "120"],
      {
        env: { ...process.env, MCP_REMOTE_CONFIG_DIR: join(dir, "config"), BROWSER: opener, DISPLAY: "", WAYLAND_DISPLAY: "" },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      try {
        const message = JSON.parse(line) as RpcAnswer & { id?: number };
        if (typeof message.id === "number") this.answers.set(message.id, message);
      } catch {
        // not a JSON-RPC line
      }
    });
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** The URLs mcp-remote asked the system browser to open, oldest first. */
  openedUrls(): URL[] {
    const file = join(this.dir, "opened.txt");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => new URL(line));
  }

  /** Waits until mcp-remote has opened more than `seen` URLs and returns the next one. */
  async nextOpenedUrl(seen: number): Promise<URL> {
    await until(
      () => this.openedUrls().length > seen || this.child.exitCode !== null,
      `mcp-remote to open the browser (stderr: ${this.stderr.slice(-300)})`,
    );
    const url = this.openedUrls()[seen];
    if (!url) throw new Error(`mcp-remote exited (${this.child.exitCode}) without opening a browser: ${this.stderr.slice(-500)}`);
    return url;
  }

  request(method: string, params: Record<string, unknown>): { id: number; answer: Promise<RpcAnswer> } {
    const id = this.nextId++;
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    const answer = until(() => this.answers.has(id) || this.child.exitCode !== null, `mcp-remote's answer to ${method}`, {
      timeoutMs: 120_000,
    }).then(() => {
      const found = this.answers.get(id);
      if (!found) throw new Error(`mcp-remote exited (${this.child.exitCode}) before answering ${method}: ${this.stderr.slice(-500)}`);
      return found;
    });
    // The answer may be awaited only after the browser part; a rejection meanwhile is not unhandled.
    answer.catch(() => undefined);
    return { id, answer };
  }

  notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill("SIGTERM");
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
