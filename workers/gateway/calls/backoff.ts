/** Exponential backoff with full jitter: attempt n (1-based) waits a random time in [0, base·2ⁿ⁻¹], capped. */
export const MAX_ATTEMPTS = 3;
const BASE_MS = 100;
const CAP_MS = 2_000;

export function backoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.round(random() * Math.min(CAP_MS, BASE_MS * 2 ** (attempt - 1)));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
