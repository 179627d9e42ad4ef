/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: they use DOM types.)
/**
 * The web console end to end, in a real headless Chromium against `wrangler dev` serving the Worker
 * and its static assets (set-up: helpers/console-browser.ts): sign in through the Worker's OAuth
 * sign-in page (a wrong API token first), call add_task and list_tasks through forms generated
 * from their input schemas, chat "add a task to call mom tomorrow" and see the tool call and the
 * task (the agent's own MCP calls carry the console's OAuth token), the gateway sources with their
 * health (the source: a second deployment's tasks server, another `wrangler dev`), the RAG p50/p95
 * chart, and signing out (both tokens revoked). Screenshots go to test/artifacts/console/ (gitignored).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  allowAndReturn,
  type ConsoleBrowser,
  type ConsoleTab,
  consoleTokens,
  openSignInPage,
  openTabIn,
  openToolIn,
  signInWithApiToken,
  startConsoleBrowser,
  startUpstreamDeployment,
  submitToolIn,
  type UpstreamDeployment,
} from "./helpers/console-browser";

/** A zone other than UTC, so "tomorrow" is checked on the user's own calendar. */
const TIME_ZONE = "Asia/Karachi";

let run: ConsoleBrowser | undefined;
let upstream: UpstreamDeployment | undefined;
let page: Page;

async function shot(name: string): Promise<void> {
  await run!.shot(page, name);
}

/** The calendar date (YYYY-MM-DD) of `date` in TIME_ZONE. */
function localDate(date: Date): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: TIME_ZONE, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

const openTab = (id: ConsoleTab) => openTabIn(page, id);
const openTool = (server: string, tool: string) => openToolIn(page, server, tool);
const submitTool = () => submitToolIn(page);

interface TaskView {
  id: number;
  title: string;
  due_date: string | null;
  priority: string;
  tags: string[];
}

async function listTasksInConsole(): Promise<TaskView[]> {
  await openTool("tasks", "list_tasks");
  const { isError, structured } = await submitTool();
  expect(isError).toBe(false);
  return (structured as { tasks: TaskView[] }).tasks;
}

/**
 * Set-up failures (no Chromium, wrangler dev not starting) are kept and thrown by every test, so
 * they count as failures with their message — a throwing beforeAll would report them as skipped.
 */
let setupError: unknown;
function step(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    if (setupError) throw setupError;
    await body();
  });
}

async function setUp(): Promise<void> {
  upstream = await startUpstreamDeployment("console", "console-upstream");
  run = await startConsoleBrowser("console", "console");
  ({ page } = await run.newPage({ timezoneId: TIME_ZONE }));
}

/** Two `wrangler dev` start one after the other (the gateway's and its upstream's): twice the hook's bound. */
const TWO_WORKERS_START_MS = 360_000;

beforeAll(async () => {
  try {
    await setUp();
  } catch (error) {
    setupError = error;
  }
}, TWO_WORKERS_START_MS);

afterAll(async () => {
  await run?.stop();
  await upstream?.worker.stop();
});

describe("web console in headless Chromium", () => {
  step("signs in through the Worker's sign-in page: a wrong API token is refused there, the right one leads to consent", async () => {
    await openSignInPage(page, run!.base);
    await page.fill("#token", "mcpe_not-a-real-token");
    await page
      .locator("form", { has: page.locator("#token") })
      .locator("button[type=submit]")
      .click();
    const refusal = page.locator("p.error[role=alert]");
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain("That API token is not valid");
    await shot("01-signin-refused");

    await signInWithApiToken(page, run!.worker.token);
    await allowAndReturn(page, run!.base);
    const tokens = await consoleTokens(page);
    expect(tokens?.access_token).toMatch(/^\d+:[^:]+:[^:]+$/);
    // No scope asked: every scope offered, all ticked but gateway:admin (given only on purpose), left so.
    const everyScopeButAdmin = ["chat", "gateway:read", "rag:read", "rag:write", "tasks:read", "tasks:write", "thinking"];
    expect(tokens?.scope.split(" ").sort()).toEqual(everyScopeButAdmin);
    expect(await page.locator("#granted").textContent()).toBe("Signed in · 7 permissions");
    // The code left the address bar.
    expect(new URL(page.url()).search).toBe("");
  });

  step("lists every server and its tools over MCP, with their schemas", async () => {
    const expected: Record<string, string[]> = {
      tasks: ["add_task", "list_tasks", "complete_task"],
      rag: ["rag_basic", "rag_ingest", "rag_health"],
      thinking: ["sequentialthinking", "reset_thinking"],
      gateway: ["add_task", "rag_health", "sequentialthinking"],
    };
    for (const [server, tools] of Object.entries(expected)) {
      const section = page.locator(`details.server[data-server="${server}"]`);
      for (const tool of tools) await section.locator(`.tool-button[data-tool="${tool}"]`).waitFor({ state: "attached" });
    }
    expect(await page.locator('details.server[data-server="tasks"] .tool-button').count()).toBe(12);
    expect(await page.locator("details.server[data-server=gateway] code").first().textContent()).toBe("/mcp");

    await openTool("tasks", "add_task");
    await page.locator("details.schema summary", { hasText: "Input schema" }).click();
    const schema = JSON.parse((await page.locator('pre[aria-label="Input schema of add_task"]').textContent()) ?? "{}") as {
      required?: string[];
      properties?: Record<string, unknown>;
    };
    expect(schema.required).toContain("title");
    expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(["title", "due_date", "priority", "tags"]));
    // The form follows the schema: required mark, enum as a select, date-time input, tags one per line.
    expect(await page.locator('[data-field="title"] .required').count()).toBe(1);
    expect(await page.locator('select[name="priority"] option').allTextContents()).toEqual(
      expect.arrayContaining(["high", "medium", "low", "none"]),
    );
    expect(await page.locator('input[name="due_date"]').getAttribute("type")).toBe("datetime-local");
    expect(await page.locator('textarea[name="tags"]').count()).toBe(1);
    // Every control has a label, and help text is wired to it.
    const unlabeled = await page
      .locator("form.call-form")
      .evaluate((form) =>
        [...form.querySelectorAll("input, select, textarea")]
          .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute("aria-label"))
          .map((el) => el.outerHTML),
      );
    expect(unlabeled).toEqual([]);
    expect(await page.locator('input[name="title"]').getAttribute("aria-describedby")).toBeTruthy();
  });

  step("calls add_task through the generated form and sees the task in list_tasks", async () => {
    await openTool("tasks", "add_task");
    // Client-side check first: the required title is named.
    await page.locator("form.call-form button[type=submit]").click();
    expect(await page.locator(".result-area [role=alert]").textContent()).toContain("title: is required");

    await page.fill('input[name="title"]', "Buy oat milk (console)");
    await page.fill('input[name="due_date"]', "2030-05-04T17:30");
    await page.selectOption('select[name="priority"]', "high");
    await page.fill('textarea[name="tags"]', "groceries\nconsole");
    const added = await submitTool();
    expect(added.isError).toBe(false);
    const task = (added.structured as { task: TaskView }).task;
    expect(task).toMatchObject({ title: "Buy oat milk (console)", priority: "high", tags: ["groceries", "console"] });
    // 17:30 in Karachi (UTC+5) is 12:30Z: the form sends the user's local time as a UTC instant.
    expect(task.due_date).toBe("2030-05-04T12:30:00.000Z");
    await shot("02-add-task-form");

    const tasks = await listTasksInConsole();
    expect(tasks.map((t) => t.id)).toContain(task.id);
    expect(await page.locator(".result-area .result pre.text").first().textContent()).toContain("Buy oat milk (console)");
    await shot("03-list-tasks");
  });

  step("shows a tool's error answer in red, from arguments given as raw JSON", async () => {
    await openTool("tasks", "add_task");
    await page.check("text=Edit arguments as raw JSON");
    await page.fill('textarea[id$="-raw"]', JSON.stringify({ title: "Bad date", due_date: "next blursday" }));
    const outcome = await submitTool();
    expect(outcome.isError).toBe(true);
    expect(outcome.text).toMatch(/due_date/);
    const color = await page
      .locator(".result-area > *")
      .first()
      .evaluate((el) => getComputedStyle(el).color);
    expect(color).toMatch(/rgb\((1[5-9]\d|2\d\d), \d{1,2}, \d{1,2}\)/); // red
  });

  step("chats 'add a task to call mom tomorrow': the tool call shows as it happens, the task appears due tomorrow", async () => {
    await openTab("chat");
    await page.locator("#panel-chat .chat-status").waitFor();
    const before = new Date();
    await page.fill("#chat-input", "add a task to call mom tomorrow");
    await page.keyboard.press("Enter");

    const call = page.locator('#panel-chat .tool-call[data-tool$="add_task"]');
    await call.waitFor({ timeout: 60_000 });
    await page.locator("#panel-chat .message-assistant").last().waitFor({ timeout: 60_000 });
    expect(await call.locator(".outcome").getAttribute("class")).not.toContain("is-error");
    expect(await call.locator(".outcome").textContent()).toMatch(/done in .*ms/);
    await call.locator("details.args summary").click();
    const args = JSON.parse((await call.locator("details.args pre").textContent()) ?? "{}") as { title?: string; due_date?: string };
    expect(args.title).toMatch(/call mom/i);
    expect(await page.locator("#panel-chat .message-assistant .text").last().textContent()).not.toBe("");
    // The agent re-sent the console's OAuth token (root resource) to the Worker's own /mcp and got its tools.
    expect((await page.locator("#panel-chat .chat-status .warning").allTextContents()).join(" ")).not.toContain("Could not load tools");
    await shot("04-chat");

    const tomorrow = new Set([localDate(new Date(before.getTime() + 86_400_000)), localDate(new Date(Date.now() + 86_400_000))]);
    const mom = (await listTasksInConsole()).find((t) => /call mom/i.test(t.title));
    expect(mom, "the chat's task is listed").toBeDefined();
    expect(mom!.due_date).not.toBeNull();
    expect(tomorrow).toContain(localDate(new Date(mom!.due_date!)));
    await shot("05-chat-task-listed");

    // History survives a reload of the panel (GET /api/chat).
    await openTab("chat");
    await page.locator("#panel-chat .message-user", { hasText: "call mom tomorrow" }).waitFor();
    await page.click("#panel-chat button:text-is('Clear conversation')");
    await page.locator("#panel-chat .chat-status", { hasText: "Conversation cleared." }).waitFor();
    expect(await page.locator("#panel-chat .chat-log > li").count()).toBe(0);
    const history = await fetch(`${run!.worker.origin}/api/chat`, { headers: { authorization: `Bearer ${run!.worker.token}` } });
    expect(((await history.json()) as { messages: unknown[] }).messages).toEqual([]);
  });

  step("shows the gateway's sources: the empty state, then a registered source with its health", async () => {
    await openTab("sources");
    await page.locator("#panel-sources .empty").waitFor();
    expect(await page.locator("#panel-sources .empty").textContent()).toContain("No sources yet");

    // The upstream deployment's user has a task of their own there.
    const upstreamAuth = { authorization: `Bearer ${upstream!.worker.token}`, "content-type": "application/json" };
    const task = JSON.stringify({ title: "Water the upstream plants" });
    const added = await fetch(`${upstream!.base}/api/tasks`, { method: "POST", headers: upstreamAuth, body: task });
    expect(added.status, await added.clone().text()).toBe(201);
    const res = await fetch(`${run!.worker.origin}/api/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${run!.worker.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Console tasks",
        url: `${upstream!.base}/mcp/tasks`,
        mcp_transport_type: "streamable_http",
        mcp_lifecycle_mode: "singleton",
        mcp_env_vars: [{ name: "Authorization", value: `Bearer ${upstream!.worker.token}`, secret: true }],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(201);

    await page.click("#panel-sources .panel-head button");
    const row = page.locator('#panel-sources tr[data-source="console_tasks"]');
    await row.waitFor();
    expect(await row.locator(".state").textContent()).toMatch(/^(healthy|unknown|degraded)$/);
    expect(await row.locator(".breaker").textContent()).toBe("closed");
    expect(await row.textContent()).toContain("12"); // its tools, discovered
    await shot("06-sources");

    // Its tools appear on the gateway once the list is reloaded, and answer through the form.
    await openTab("tools");
    await page.click("#panel-tools button.reload");
    await openTool("gateway", "console_tasks__list_tasks");
    const listed = await submitTool();
    expect(listed.isError).toBe(false);
    expect(listed.text).toMatch(/Water the upstream plants/);
  });

  step("charts the RAG health's p50/p95 after documents are ingested and queried through the forms", async () => {
    await openTool("rag", "rag_ingest");
    // `documents` is an array of objects: the form gives it a JSON box.
    await page.fill(
      'textarea[name="documents"]',
      JSON.stringify([
        { id: "oat", title: "Oat milk", text: "Oat milk is made by soaking oats in water and blending them." },
        { id: "tea", title: "Green tea", text: "Green tea leaves are steamed or pan-fired soon after picking." },
      ]),
    );
    expect((await submitTool()).isError).toBe(false);

    await openTool("rag", "rag_basic");
    await page.fill('[name="query"]', "how is oat milk made?");
    const answer = await submitTool();
    expect(answer.isError).toBe(false);
    expect(answer.text).toMatch(/oat/i);

    await openTab("rag");
    const chart = page.locator("#panel-rag svg.latency-chart");
    await chart.waitFor();
    expect(await chart.getAttribute("role")).toBe("img");
    expect(await chart.locator("desc").textContent()).toMatch(/all pipelines: p50 .* p95 /);
    const p50 = Number(await chart.locator("rect.bar-p50").first().getAttribute("data-value"));
    const p95 = Number(await chart.locator("rect.bar-p95").first().getAttribute("data-value"));
    expect(p50).toBeGreaterThan(0);
    expect(p95).toBeGreaterThanOrEqual(p50);
    // One row for all pipelines, then one per pipeline; only rag_basic has answered a query.
    expect(await chart.getAttribute("data-rows")).toBe("7");
    expect(Number(await chart.locator('g.row[data-label="rag_basic"] rect.bar-p50').getAttribute("data-value"))).toBeGreaterThan(0);
    expect(await chart.locator('g.row[data-label="rag_crag"] rect.bar-p95').getAttribute("data-value")).toBe("0");
    expect(await page.locator('#panel-rag tr:has(code:text-is("rag_basic")) td').nth(1).textContent()).toBe("1");
    await shot("07-rag-health");
  });

  step("is keyboard-usable and fits a phone screen, then signs out", async () => {
    await page.focus("#tab-rag");
    await page.keyboard.press("ArrowRight");
    expect(await page.locator("#tab-chat").getAttribute("aria-selected")).toBe("true");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("tab-chat");

    await page.setViewportSize({ width: 390, height: 844 });
    await openTool("tasks", "add_task");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot("08-phone");

    const before = (await consoleTokens(page))!;
    await page.click("#sign-out");
    await page.locator("#sign-in").waitFor();
    expect(await page.locator(".signin-status").textContent()).toContain("Signed out");
    expect(await consoleTokens(page)).toBeNull();
    // Sign out revoked the grant: its refresh token is refused.
    // The token endpoint answers on the issuer's own host name (SELF_ORIGIN, localhost).
    const refreshed = await fetch(`${run!.base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: before.refresh_token,
        client_id: await page.evaluate(() => JSON.parse(localStorage.getItem("mcp-edge.oauth-client") ?? "{}").client_id),
      }),
    });
    expect(((await refreshed.json()) as { error?: string }).error).toBe("invalid_grant");

    // Tokens the Worker no longer accepts (and cannot refresh) land on the sign-in view with the reason.
    await page.evaluate(() =>
      sessionStorage.setItem(
        "mcp-edge.oauth-tokens",
        JSON.stringify({ access_token: "1:revoked:gone", refresh_token: "1:revoked:gone", scope: "", expires_at: Date.now() + 3_600_000 }),
      ),
    );
    await page.reload();
    const notice = page.locator(".signin-status [role=alert]");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("no longer accepts your sign-in");
    expect(await consoleTokens(page)).toBeNull();
    expect(run!.pageErrors).toEqual([]);
  });
});
