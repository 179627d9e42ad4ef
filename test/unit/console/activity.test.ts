// @vitest-environment happy-dom
/**
 * The console's Activity tab (public/js/activity-view.js) outside the browser: a person's calls as
 * rows, newest first as the API lists them, with the client named in words; "Show older" follows
 * next_cursor and appends the older page, and disappears on the last page; an empty list and a
 * failed load say so. happy-dom stands in for the page's DOM; the loader stands in for
 * GET /api/activity (activity.js passes the real one).
 */
import { describe, expect, it } from "vitest";
import { clientLabel, renderActivity } from "../../../public/js/activity-view.js";

type Page = Awaited<ReturnType<Parameters<typeof renderActivity>[1]>>;
type Call = Page["calls"][number];

const noClient = { name: null, version: null, protocol_version: null, oauth_client_id: null };

function call(id: string, tool: string, extra: Partial<Call> = {}): Call {
  const at = "2026-11-27T10:00:00.000Z";
  return { event_id: id, at, server: "tasks", tool, source: null, outcome: "ok", duration_ms: 12, client: noClient, ...extra };
}

function rows(container: HTMLElement): string[] {
  return [...container.querySelectorAll("tbody tr")].map((row) => row.getAttribute("data-call") ?? "");
}

describe("the activity view", () => {
  it("shows each call's client, server, tool, outcome and duration, and follows next_cursor with Show older", async () => {
    const pages: Record<string, Page> = {
      first: {
        calls: [
          call("c3", "add_task", { client: { name: "Claude", version: "1.2.0", protocol_version: "2026-07-28", oauth_client_id: "abc" } }),
          call("c2", "search_issues", { server: "github", source: { id: 7, slug: "github" }, outcome: "circuit_open", duration_ms: 1500 }),
        ],
        next_cursor: "older",
        retention_days: 30,
      },
      older: { calls: [call("c1", "list_tasks")], next_cursor: null, retention_days: 30 },
    };
    const asked: (string | null)[] = [];
    const container = document.createElement("div");
    document.body.replaceChildren(container);

    await renderActivity(container, async (cursor) => {
      asked.push(cursor);
      return pages[cursor ?? "first"]!;
    });

    expect(rows(container)).toEqual(["c3", "c2"]);
    const first = container.querySelector('[data-call="c3"]')!;
    expect([...first.querySelectorAll("td, th")].map((cell) => cell.textContent)).toEqual([
      new Date("2026-11-27T10:00:00.000Z").toLocaleString(),
      "Claude 1.2.0",
      "tasks",
      "add_task",
      "ok",
      "12 ms",
    ]);
    const failed = container.querySelector('[data-call="c2"]')!;
    expect(failed.querySelector('[data-outcome="circuit_open"]')!.className).toBe("bad");
    expect(failed.textContent).toContain("github (source)");
    expect(failed.textContent).toContain("1.50 s");
    expect(container.textContent).toContain("last 30 days");

    const older = container.querySelector<HTMLButtonElement>("[data-older]")!;
    expect(older.hidden).toBe(false);
    older.click();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(asked).toEqual([null, "older"]);
    expect(rows(container)).toEqual(["c3", "c2", "c1"]);
    expect(older.hidden).toBe(true);
  });

  it("says when there are no calls yet, and shows a failed load's error", async () => {
    const empty = document.createElement("div");
    await renderActivity(empty, async () => ({ calls: [], next_cursor: null, retention_days: 7 }));
    expect(empty.textContent).toContain("No calls yet.");
    expect(empty.textContent).toContain("last 7 days");

    const failing = document.createElement("div");
    await renderActivity(failing, async () => {
      throw new Error("forbidden (403)");
    });
    expect(failing.querySelector('[role="alert"]')!.textContent).toContain("forbidden (403)");
  });

  it("names the client by its own name, else its OAuth app, else says it is unnamed", () => {
    expect(clientLabel({ name: "Cursor", version: null, protocol_version: "2026-07-28", oauth_client_id: null })).toBe("Cursor");
    const app = "https://app.example/client.json";
    expect(clientLabel({ name: null, version: null, protocol_version: "2025-11-25", oauth_client_id: app })).toBe(`app ${app}`);
    expect(clientLabel({ name: null, version: null, protocol_version: "2025-11-25", oauth_client_id: null })).toBe("MCP client (unnamed)");
    expect(clientLabel(noClient)).toBe("unknown");
  });
});
