/**
 * Pages of the gateway's tools/list (decision 0051): which tools one page lists, and the SDK's
 * answer to it with `nextCursor` added — the SDK's tools/list lists whatever is registered and knows
 * no pages, so gateway.server.ts registers only the page's tools and adds the cursor after.
 */
import { isJsonObject } from "../../lib/json";

/** One page of what tools/list lists: built-ins first (the user's visible ones, in order), then source tools. */
export interface ListedPage<T> {
  builtins: ReadonlySet<string>;
  sourceTools: T[];
  /** Where the next page starts; undefined on the last one. */
  next: number | undefined;
}

export function pageOf<T>(visibleBuiltins: readonly string[], sourceTools: readonly T[], offset: number, size: number): ListedPage<T> {
  const end = offset + size;
  const total = visibleBuiltins.length + sourceTools.length;
  const fromSources = Math.max(0, offset - visibleBuiltins.length);
  return {
    builtins: new Set(visibleBuiltins.slice(offset, end)),
    sourceTools: sourceTools.slice(fromSources, Math.max(fromSources, end - visibleBuiltins.length)),
    next: end < total ? end : undefined,
  };
}

/** A JSON-RPC message (a JSON body, or an SSE event's data) with `nextCursor` in its result; unchanged without a result. */
function withCursor(message: string, nextCursor: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return message;
  }
  if (!isJsonObject(parsed) || !isJsonObject(parsed["result"])) return message;
  return JSON.stringify({ ...parsed, result: { ...parsed["result"], nextCursor } });
}

/**
 * The SDK's answer to a tools/list page with `nextCursor` added: the SDK's tools/list lists what
 * is registered and knows no pages. Only a page with more after it is rewritten.
 */
export async function withNextCursor(response: Response, nextCursor: string): Promise<Response> {
  const text = await response.text();
  const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  const body = sse
    ? text
        .split("\n")
        .map((line) => (line.startsWith("data: ") && line.includes('"result"') ? `data: ${withCursor(line.slice(6), nextCursor)}` : line))
        .join("\n")
    : withCursor(text, nextCursor);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
