/** Values built on first use and kept for the isolate: imports of whole areas (workers/http/lazy.ts), libraries, servers. */

/**
 * A value made by the first call and shared by every later one (per isolate). A failed attempt is
 * not kept: the next call tries again, so one bad moment does not break the isolate for good.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () =>
    (made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    }));
}
