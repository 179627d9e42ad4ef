import type { Client } from "@modelcontextprotocol/client";

type CallParams = Parameters<Client["callTool"]>[0];
type CallOptions = Parameters<Client["callTool"]>[1];
type CallResult = Awaited<ReturnType<Client["callTool"]>>;

/** How long a `rate_limited` tool result (the server's per-user tool-call limit) asks to wait, else undefined. */
export function rateLimitWait(result: CallResult): number | undefined {
  if (!result.isError) return undefined;
  const error = result._meta?.["error"];
  if (typeof error !== "object" || error === null || !("code" in error) || error.code !== "rate_limited") return undefined;
  const wait = "retry_after_ms" in error ? error.retry_after_ms : undefined;
  return typeof wait === "number" && wait >= 0 ? wait : 1000;
}

/**
 * Calls a tool as a well-behaved client of a rate-limited server does: a `rate_limited` result is
 * waited out (its `retry_after_ms`) and the call sent again, at most `maxWaits` times. Returns the
 * answered attempt's result and its own duration, so the waits never count as the tool's latency.
 */
export async function callToolWaitingOutLimits(
  client: Client,
  params: CallParams,
  options?: CallOptions,
  maxWaits = 20,
): Promise<{ result: CallResult; ms: number }> {
  for (let waits = 0; ; waits++) {
    const started = performance.now();
    const result = await client.callTool(params, options);
    const ms = performance.now() - started;
    const wait = rateLimitWait(result);
    if (wait === undefined || waits >= maxWaits) return { result, ms };
    await new Promise((resolve) => setTimeout(resolve, wait + 50));
  }
}
