/** REST calls against the Worker in-process, with the JSON parsed and the status kept. */
import type { TestUser } from "./users";
import { workerFetch } from "./mcp";

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** `body` is sent as JSON; pass a string in `raw` to send bytes exactly as given. */
export async function api<T = Record<string, unknown>>(
  user: TestUser | undefined,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(user?.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  Object.assign(headers, options.headers);
  const res = await workerFetch(`http://localhost${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === "" ? null : JSON.parse(text)) as T };
}
