/**
 * Polling for what happens after a request returns (a queue consumer's row, a rediscovery, a
 * child process's exit): the one helper every test uses, in workerd and in Node alike (it imports
 * nothing). It bounds the wait, never asserts how long it took, and names what it waited for.
 */
export interface PollOptions {
  /** Give up after this long (a failure naming `what`). */
  timeoutMs?: number;
  /** Pause between checks. */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a value other than undefined or null, and returns that value;
 * throws "timed out after N ms waiting for <what>" once `timeoutMs` has passed.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | null> | T | undefined | null,
  what: string,
  { timeoutMs = 20_000, intervalMs = 100 }: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** `eventually` for a yes/no condition: resolves once `condition` holds. */
export async function until(condition: () => Promise<boolean> | boolean, what: string, options: PollOptions = {}): Promise<void> {
  await eventually(async () => ((await condition()) ? true : undefined), what, options);
}
