/** Small order statistics shared by the load and CPU phases. */

/** Nearest-rank percentile (p in 0–100) of values sorted ascending; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds for reporting: 3 significant decimals below 10, 1 decimal above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) < 10 ? Math.round(value * 1000) / 1000 : Math.round(value * 10) / 10;
}
