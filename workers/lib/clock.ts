/** Time as the domain sees it: ISO 8601 UTC strings with milliseconds, as stored in D1. */
export function nowIso(): string {
  return new Date().toISOString();
}
