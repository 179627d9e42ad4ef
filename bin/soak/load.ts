/**
 * The soak's writers: several users, each with several concurrent loops creating tasks (REST and
 * MCP in turn) and renaming every third one. A write counts as acknowledged only when its success
 * answer arrived; the ledger keeps exactly those, for the check after the crash.
 */

export interface SoakUser {
  name: string;
  token: string;
}

export interface Ledger {
  /** Acknowledged creations: task id → its title as created. */
  adds: Map<number, { user: string; title: string }>;
  /** Task ids whose rename to `<title> v2` was acknowledged. */
  renames: Set<number>;
  sent: number;
  /** Requests that got no answer (the connection died: the kill). */
  lost: number;
  /** Answers 5xx: the server failing, which must never happen. */
  serverErrors: number;
  /** Other refusals (4xx, or an MCP tool's isError result such as a rate limit), with a sample. */
  refused: number;
  refusedSample: string | undefined;
}

export function newLedger(): Ledger {
  return { adds: new Map(), renames: new Set(), sent: 0, lost: 0, serverErrors: 0, refused: 0, refusedSample: undefined };
}

const REQUEST_TIMEOUT_MS = 15_000;

async function send(ledger: Ledger, url: string, init: RequestInit): Promise<unknown> {
  ledger.sent++;
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch {
    ledger.lost++;
    return undefined;
  }
  const text = await res.text().catch(() => undefined);
  if (text === undefined) {
    ledger.lost++;
    return undefined;
  }
  if (res.status >= 500) ledger.serverErrors++;
  else if (res.status >= 400) {
    ledger.refused++;
    ledger.refusedSample ??= `${res.status} ${text.slice(0, 200)}`;
  }
  if (!res.ok) return undefined;
  // The MCP fast path answers JSON; the SDK may answer one SSE event.
  const json = text.startsWith("event:")
    ? text
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6)
    : text;
  const answer: unknown = json === undefined ? undefined : JSON.parse(json);
  // A tool's refusal (a rate limit, a busy server) arrives as HTTP 200 with an isError result.
  if (isToolError(answer)) {
    ledger.refused++;
    ledger.refusedSample ??= `tool error ${text.slice(0, 200)}`;
  }
  return answer;
}

function isToolError(answer: unknown): boolean {
  if (typeof answer !== "object" || answer === null || !("result" in answer)) return false;
  const result = answer.result;
  return typeof result === "object" && result !== null && "isError" in result && result.isError === true;
}

function rest(origin: string, user: SoakUser, method: string, path: string, body: unknown): RequestInit & { url: string } {
  return {
    url: `${origin}${path}`,
    method,
    headers: { authorization: `Bearer ${user.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

function mcpCall(origin: string, user: SoakUser, name: string, args: Record<string, unknown>): RequestInit & { url: string } {
  return {
    url: `${origin}/mcp/tasks`,
    method: "POST",
    headers: {
      authorization: `Bearer ${user.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  };
}

/** The task in a REST `{task}` answer or an MCP tools/call result, unless the call failed. */
function taskOf(answer: unknown): { id: number } | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const record = answer as { task?: { id: number }; result?: { isError?: boolean; structuredContent?: { task?: { id: number } } } };
  if (record.task) return record.task;
  return record.result && !record.result.isError ? record.result.structuredContent?.task : undefined;
}

async function writeOnce(origin: string, user: SoakUser, loop: number, seq: number, ledger: Ledger): Promise<void> {
  const title = `soak ${user.name} loop ${loop} #${seq}`;
  const viaMcp = seq % 2 === 1;
  const create = viaMcp
    ? mcpCall(origin, user, "add_task", { title, tags: ["soak"] })
    : rest(origin, user, "POST", "/api/tasks", { title, tags: ["soak"] });
  const created = taskOf(await send(ledger, create.url, create));
  if (!created) return;
  ledger.adds.set(created.id, { user: user.name, title });
  if (seq % 3 !== 0) return;
  const renamed = `${title} v2`;
  const rename = viaMcp
    ? mcpCall(origin, user, "update_task", { task_id: created.id, title: renamed })
    : rest(origin, user, "PATCH", `/api/tasks/${created.id}`, { title: renamed });
  if (taskOf(await send(ledger, rename.url, rename))) ledger.renames.add(created.id);
}

/**
 * Runs `loopsPerUser` concurrent writers per user against `origin()` until `running()` turns
 * false; resolves once every writer has finished its current request.
 */
export async function runLoad(options: {
  origin: () => string;
  users: readonly SoakUser[];
  loopsPerUser: number;
  ledger: Ledger;
  running: () => boolean;
  firstSeq: number;
}): Promise<void> {
  const loops = options.users.flatMap((user) =>
    Array.from({ length: options.loopsPerUser }, async (_, loop) => {
      for (let seq = options.firstSeq; options.running(); seq++) await writeOnce(options.origin(), user, loop, seq, options.ledger);
    }),
  );
  await Promise.all(loops);
}
