/// <reference lib="dom" />
// (frame.evaluate callbacks run in the browser: they use DOM types.)
/**
 * The console as an MCP Apps host (issue 24), in a real headless Chromium against `wrangler dev`:
 * calling show_task_board opens the task board app in a sandboxed frame, the board lists the
 * user's task, completing it there calls complete_task through the host, and the task is completed
 * in D1 (read back through the REST API). The frame reaches none of the console's storage. A RAG
 * query opens the answer view with the passages behind its answer.
 * Screenshots go to test/artifacts/apps/ (gitignored).
 */
import type { FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually";
import {
  allowAndReturn,
  type ConsoleBrowser,
  openSignInPage,
  openToolIn,
  signInWithApiToken,
  startConsoleBrowser,
  submitToolIn,
} from "./helpers/console-browser";

let run: ConsoleBrowser | undefined;
let page: Page;
let setupError: unknown;

/** Set-up failures are thrown by every test, so they count as failures with their message. */
function step(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    if (setupError) throw setupError;
    await body();
  });
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${run!.base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${run!.worker.token}`, "content-type": "application/json" },
  });
}

/** One `wrangler dev` start bounds the hook. */
const WORKER_START_MS = 180_000;

beforeAll(async () => {
  try {
    run = await startConsoleBrowser("apps", "apps");
    ({ page } = await run.newPage());
  } catch (error) {
    setupError = error;
  }
}, WORKER_START_MS);

afterAll(async () => {
  await run?.stop();
});

describe("MCP Apps in the console", () => {
  let taskId: number;
  let board: FrameLocator;

  step("opens in a sandboxed frame when show_task_board is called, listing the user's tasks", async () => {
    const added = await api("/api/tasks", { method: "POST", body: JSON.stringify({ title: "Repot the fern", priority: "high" }) });
    expect(added.status, await added.clone().text()).toBe(201);
    taskId = ((await added.json()) as { task: { id: number } }).task.id;

    await openSignInPage(page, run!.base);
    await signInWithApiToken(page, run!.worker.token);
    await allowAndReturn(page, run!.base);
    await openToolIn(page, "tasks", "show_task_board");
    const { isError } = await submitToolIn(page);
    expect(isError).toBe(false);

    const frame = page.locator("iframe.app-frame");
    await frame.waitFor();
    expect(await frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(await frame.getAttribute("data-app")).toBe("ui://tasks/task-board.html");
    board = page.frameLocator("iframe.app-frame");
    await board.locator(`li.task[data-task-id="${taskId}"]`).waitFor();
    expect(await board.locator(`li.task[data-task-id="${taskId}"] .title`).textContent()).toBe("Repot the fern");
    await run!.shot(page, "01-task-board");
  });

  step("runs under the app's own CSP, with none of the console's storage", async () => {
    const handle = await page.locator("iframe.app-frame").elementHandle();
    const inner = await handle!.contentFrame();
    const seen = await inner!.evaluate(() => {
      let storage = "readable";
      try {
        void window.sessionStorage.length;
      } catch {
        storage = "blocked";
      }
      const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? "";
      return { storage, csp, origin: window.origin };
    });
    expect(seen.storage).toBe("blocked");
    expect(seen.origin).toBe("null");
    expect(seen.csp).toContain("default-src 'none'");
    expect(seen.csp).toContain("connect-src 'none'");
  });

  step("completes a task on the board, and the task is completed in D1", async () => {
    await board.locator(`li.task[data-task-id="${taskId}"] input[type=checkbox]`).check();
    // The board lists again after the call: the task now shows as completed.
    await board.locator(`li.task.completed[data-task-id="${taskId}"]`).waitFor();
    const task = await eventually(async () => {
      const res = await api(`/api/tasks/${taskId}`);
      const body = (await res.json()) as { task: { status: string } };
      return body.task.status === "completed" ? body.task : undefined;
    }, `task ${taskId} completed in D1`);
    expect(task.status).toBe("completed");
    await run!.shot(page, "02-task-completed");
  });

  step("the RAG answer view shows the passages behind an answer, with their sources and scores", async () => {
    const document = {
      id: "fern-care",
      title: "Fern care",
      text: "Repot a fern every spring, when its roots fill the pot. Ferns like damp soil and indirect light.",
      source: "https://example.com/ferns",
    };
    const ingested = await api("/api/documents", { method: "POST", body: JSON.stringify({ documents: [document] }) });
    expect(ingested.status, await ingested.clone().text()).toBeLessThan(300);

    await openToolIn(page, "rag", "rag_basic");
    await page.fill('[name="query"]', "when should I repot a fern?");
    const { isError } = await submitToolIn(page);
    expect(isError).toBe(false);
    const view = page.frameLocator('iframe.app-frame[data-app="ui://rag/answer-view.html"]');
    const passage = view.locator('li.passage[data-doc-id="fern-care"]');
    await passage.waitFor();
    expect(await passage.locator("h2").textContent()).toBe("Fern care");
    expect(await passage.locator(".source").textContent()).toContain("https://example.com/ferns");
    expect(await passage.locator(".score").textContent()).toMatch(/^score \d+\.\d{3}$/);
    expect(await passage.locator("blockquote").textContent()).toContain("Repot a fern every spring");
    await run!.shot(page, "03-answer-view");
  });

  step("threw no page error and made no request outside the Worker", async () => {
    expect(run!.pageErrors).toEqual([]);
  });
});
