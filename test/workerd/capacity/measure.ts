/**
 * One request to the Worker's app with counted bindings, and what it cost once
 * everything it left running (waitUntil: queue sends, breaker reports) has finished.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { CALL_BUDGETS, type CallKind, type OperationCounts } from "../../../bench/capacity/operation-budgets";
import { createApp } from "../../../workers/app";
import { type JsonRpcResponse, modernPost, rpcResponse } from "../../helpers/rpc";
import { countingEnv } from "./counting-env";

/** One counting env per test file: the isolate's caches key on binding objects, so one set of them warms as production's does. */
export const counting = countingEnv(env);

/** The Worker's app, as workers/index.ts serves it (that handler's fetch only adds the finishing of an unread body). */
const app = createApp();

/** Longer than every cache of the isolate lives (tokens 30 s, the gateway's 5 s and 60 s): after it, the next call is cold. */
const LONGER_THAN_ANY_CACHE_MS = 10 * 60_000;

export interface Counted {
  status: number;
  contentType: string;
  text: string;
  counts: OperationCounts;
}

export async function countedFetch(path: string, init: RequestInit): Promise<Counted> {
  counting.reset();
  const request = new Request(`http://localhost${path}`, init);
  request.headers.set("host", "localhost");
  const ctx = createExecutionContext();
  const response = await app.fetch(request, counting.env, ctx);
  const text = await response.text();
  await waitOnExecutionContext(ctx);
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, counts: counting.counts() };
}

/** A 2026-07-28 MCP request (`tools/list`, `tools/call`) to `path`, which must succeed. */
export async function countedMcp(path: string, token: string, method: string, params: Record<string, unknown> = {}) {
  const { status, contentType, text, counts } = await countedFetch(path, modernPost(token, method, params));
  const message: JsonRpcResponse = await rpcResponse(new Response(text, { headers: { "content-type": contentType } }));
  expect(status, text).toBe(200);
  expect(message.error, text).toBeUndefined();
  expect(message.result?.["isError"], text).not.toBe(true);
  return counts;
}

/**
 * Measures `call` cold (the clock moved on past every cache of the isolate), then warm (the same
 * again at once). The clock stands still from the cold call to the warm one, so no cache can expire
 * between them however slow the machine is; the set-up before runs on the real clock.
 */
export async function coldThenWarm(call: () => Promise<OperationCounts>): Promise<{ cold: OperationCounts; warm: OperationCounts }> {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + LONGER_THAN_ANY_CACHE_MS });
  try {
    const cold = await call();
    const warm = await call();
    return { cold, warm };
  } finally {
    vi.useRealTimers();
  }
}

/** The measured counts are the committed budget (bench/capacity/operation-budgets.ts), exactly. */
export function expectBudget(kind: CallKind, measured: { cold: OperationCounts; warm: OperationCounts }): void {
  const budget = CALL_BUDGETS[kind];
  expect(
    { cold: measured.cold, warm: measured.warm },
    `${kind}: the operations of "${budget.what}" changed; if on purpose, update bench/capacity/operation-budgets.ts ` +
      `(measured: ${JSON.stringify(measured)})`,
  ).toEqual({ cold: budget.cold, warm: budget.warm });
}
